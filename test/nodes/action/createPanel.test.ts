/** Payment Order → Create's panel: what n8n shows for each Settlement Mode (n8n's own display logic). */
import { NodeHelpers, type INode, type INodeParameters, type INodeProperties } from 'n8n-workflow';

import { node } from './env';

const properties = node.description.properties;
const nodeStub = { typeVersion: 1, parameters: {} } as unknown as INode;

/** The fields of Create shown for these values (defaults filled in as the editor does). */
function shown(values: INodeParameters): INodeProperties[] {
	const all = { resource: 'paymentOrder', operation: 'create', ...values };
	const withDefaults = NodeHelpers.getNodeParameters(properties, all, true, false, nodeStub, node.description) ?? {};
	return properties.filter(
		(p) => !['resource', 'operation'].includes(p.name) && NodeHelpers.displayParameter(withDefaults, p, nodeStub, node.description),
	);
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
	const additional = standard.find((f) => f.name === 'additionalFields')!;
	expect((additional.options as INodeProperties[]).map((o) => o.name)).toEqual(['subaccountId']);
	// The default mode is standard.
	expect(names(shown({}))).toEqual(names(standard));
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
