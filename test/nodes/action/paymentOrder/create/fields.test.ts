/** Payment Order → Create's panel: what n8n shows for each Settlement Mode (n8n's own display logic). */
import { NodeHelpers, type INode, type INodeParameters, type INodeProperties } from 'n8n-workflow';

import { node } from '../../support';

const properties = node.description.properties;
const nodeStub = { typeVersion: 1, parameters: {} } as unknown as INode;

/** The fields of Create shown for these values (defaults filled in as the editor does), in version 1 unless `typeVersion`. */
function shown(values: INodeParameters, typeVersion = 1): INodeProperties[] {
	const stub = { ...nodeStub, typeVersion };
	const all = { resource: 'paymentOrder', operation: 'create', ...values };
	const withDefaults = NodeHelpers.getNodeParameters(properties, all, true, false, stub, node.description) ?? {};
	return properties.filter((p) => !['resource', 'operation'].includes(p.name) && NodeHelpers.displayParameter(withDefaults, p, stub, node.description));
}

/** The options of Additional Fields n8n offers in this version (its "Add Field" list). */
function additionalOptions(typeVersion: number): string[] {
	const stub = { ...nodeStub, typeVersion };
	const additional = shown({ mode: 'standard' }, typeVersion).find((f) => f.name === 'additionalFields')!;
	return (additional.options as INodeProperties[]).filter((o) => NodeHelpers.displayParameter({}, o, stub, node.description)).map((o) => o.name);
}
const names = (fields: INodeProperties[]) => fields.map((f) => f.name);
const STANDARD_ONLY = ['expiry', 'expiresInMinutes', 'expiresAt', 'additionalFields'];

test('Instant hides the standard-only fields and shows Quote ID as required', () => {
	const instant = shown({ mode: 'instant' });
	for (const name of STANDARD_ONLY) expect(names(instant)).not.toContain(name);
	expect(instant.filter((f) => f.name === 'quoteId').map((f) => f.required)).toEqual([true]);
	// The rest of the order is still asked for.
	expect(names(instant)).toEqual(expect.arrayContaining(['fromUserId', 'toAddress', 'toChain', 'asset', 'amountUsd', 'memo', 'options']));
});

test('Standard shows the expiry and Additional Fields (Subaccount ID), and Quote ID as optional', () => {
	const standard = shown({ mode: 'standard' });
	expect(names(standard)).toEqual(expect.arrayContaining(['expiry', 'expiresInMinutes', 'additionalFields']));
	expect(names(standard)).not.toContain('expiresAt');
	expect(names(shown({ mode: 'standard', expiry: 'at' }))).toEqual(expect.arrayContaining(['expiresAt']));
	expect(standard.filter((f) => f.name === 'quoteId').map((f) => f.required ?? false)).toEqual([false]);
	expect(additionalOptions(1)).toEqual(['subaccountId']);
	// The default mode is standard.
	expect(names(shown({}))).toEqual(names(standard));
});

test('from version 2.1 Standard shows no Quote ID on the panel: it is in Additional Fields; Instant still asks for it', () => {
	expect(names(shown({ mode: 'standard' }, 2.1))).not.toContain('quoteId');
	expect(additionalOptions(2.1)).toEqual(['subaccountId', 'quoteId']);
	expect(
		shown({ mode: 'instant' }, 2.1)
			.filter((f) => f.name === 'quoteId')
			.map((f) => f.required),
	).toEqual([true]);
	// Versions 1 and 2 (saved workflows) keep it on the panel, and not twice.
	for (const version of [1, 2]) {
		expect(shown({ mode: 'standard' }, version).filter((f) => f.name === 'quoteId')).toHaveLength(1);
		expect(additionalOptions(version)).toEqual(['subaccountId']);
	}
});

test('a Settlement Mode expression shows the standard panel, with Quote ID optional (each item is checked at run time)', () => {
	const byExpression = shown({ mode: '={{ $json.mode }}' });
	expect(names(byExpression)).toEqual(expect.arrayContaining(STANDARD_ONLY.filter((n) => n !== 'expiresAt')));
	expect(byExpression.filter((f) => f.name === 'quoteId').map((f) => f.required ?? false)).toEqual([false]);
});

test('Instant shows no field twice, and Map Automatically keeps the mode rules', () => {
	for (const mode of ['instant', 'standard']) {
		for (const dataMode of ['defineBelow', 'autoMapInputData']) {
			const fields = names(shown({ mode, dataMode }));
			expect(fields).toEqual([...new Set(fields)]);
		}
	}
	expect(names(shown({ mode: 'instant', dataMode: 'autoMapInputData' }))).toEqual(expect.arrayContaining(['quoteId']));
	expect(names(shown({ mode: 'instant', dataMode: 'autoMapInputData' }))).not.toContain('expiry');
});

test('ID placeholders in the action node have the shape users see: UUIDs (no usr_ or po_ prefixes)', () => {
	const found: Array<[string, string]> = [];
	const walk = (list: unknown[]): void => {
		for (const entry of list as Array<Record<string, unknown>>) {
			if (typeof entry.placeholder === 'string' && /(^|[a-z])I[Dd]s?$|Id$/.test(String(entry.name))) found.push([String(entry.name), entry.placeholder]);
			for (const key of ['options', 'values', 'modes']) if (Array.isArray(entry[key])) walk(entry[key] as unknown[]);
		}
	};
	walk(properties);
	expect(found.length).toBeGreaterThanOrEqual(6);
	for (const [name, placeholder] of found) {
		expect([name, placeholder]).toEqual([name, expect.stringMatching(/^e\.g\. [0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)]);
	}
	expect(JSON.stringify(properties)).not.toMatch(/usr_|po_01|-…/);
});
