/** Payment Order → Create's panel: what n8n shows for each Settlement Mode (n8n's own display logic). */
import { NodeHelpers, type INode, type INodeParameters, type INodeProperties } from 'n8n-workflow';

import { node } from '../../support';

const properties = node.description.properties;
const stub = { typeVersion: node.description.version, parameters: {} } as unknown as INode;

/** The fields of Create shown for these values (defaults filled in as the editor does). */
function shown(values: INodeParameters): INodeProperties[] {
	const all = { resource: 'paymentOrder', operation: 'create', ...values };
	const withDefaults = NodeHelpers.getNodeParameters(properties, all, true, false, stub, node.description) ?? {};
	return properties.filter((p) => !['resource', 'operation'].includes(p.name) && NodeHelpers.displayParameter(withDefaults, p, stub, node.description));
}

/** The options of Additional Fields n8n offers (its "Add Field" list). */
function additionalOptions(values: INodeParameters = { mode: 'standard' }): string[] {
	const additional = shown(values).find((f) => f.name === 'additionalFields')!;
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

test('Standard shows the expiry and Additional Fields (Subaccount ID, Quote ID), and no Quote ID on the panel', () => {
	const standard = shown({ mode: 'standard' });
	expect(names(standard)).toEqual(expect.arrayContaining(['expiry', 'expiresInMinutes', 'additionalFields']));
	expect(names(standard)).not.toContain('expiresAt');
	expect(names(shown({ mode: 'standard', expiry: 'at' }))).toEqual(expect.arrayContaining(['expiresAt']));
	expect(names(standard)).not.toContain('quoteId');
	expect(additionalOptions()).toEqual(['subaccountId', 'quoteId']);
	// The default mode is standard.
	expect(names(shown({}))).toEqual(names(standard));
});

test('a Settlement Mode expression shows the standard panel, with Quote ID optional in Additional Fields (each item is checked at run time)', () => {
	const byExpression = shown({ mode: '={{ $json.mode }}' });
	expect(names(byExpression)).toEqual(expect.arrayContaining(STANDARD_ONLY.filter((n) => n !== 'expiresAt')));
	expect(names(byExpression)).not.toContain('quoteId');
	expect(additionalOptions({ mode: '={{ $json.mode }}' })).toEqual(['subaccountId', 'quoteId']);
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
