/** The node's Resource and Operation fields are built from the router's map and agree with it. */
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { Clearinghouse } from '../../../nodes/Clearinghouse/Clearinghouse.node';
import { resources } from '../../../nodes/Clearinghouse/actions/router';

const { properties } = new Clearinghouse().description;

function optionValues(property: INodeProperties | undefined): string[] {
	return ((property?.options ?? []) as INodePropertyOptions[]).map((option) => String(option.value));
}

test("the node's Resource options are the router's resources, named as the map names them", () => {
	const resource = properties.find((property) => property.name === 'resource');
	expect(resource?.options).toEqual(Object.entries(resources).map(([value, { displayName }]) => ({ name: displayName, value })));
	expect(Object.keys(resources)).toContain(resource?.default);
});

test.each(Object.keys(resources))('%s: its Operation options are exactly the operations the router can run', (name) => {
	const operationFields = properties.filter((property) => property.name === 'operation' && property.displayOptions?.show?.resource?.includes(name));
	expect(operationFields).toHaveLength(1);
	const runnable = Object.entries(resources[name].operations)
		.filter(([, module]) => typeof (module as { execute?: unknown })?.execute === 'function')
		.map(([operation]) => operation);
	expect(optionValues(operationFields[0]).sort()).toEqual(runnable.sort());
});

test("every property after Resource is one resource's, in the map's order", () => {
	const expected = Object.values(resources).flatMap(({ operations }) => operations.description);
	expect(properties.slice(1)).toEqual(expected);
});

describe('the canvas subtitle', () => {
	test('names the resource and the operation in the panel words, for every operation', () => {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const { Clearinghouse } = require('../../../nodes/Clearinghouse/Clearinghouse.node') as typeof import('../../../nodes/Clearinghouse/Clearinghouse.node');
		const subtitle = String(new Clearinghouse().description.subtitle);
		const body = /^=\{\{ ([\s\S]*) \}\}$/.exec(subtitle)![1];
		const evaluate = (resource: string, operation: string) =>
			// The same JavaScript n8n's expression engine runs, with $parameter as the panel holds it.
			new Function('$parameter', `return ${body};`)({ resource, operation }) as string;
		expect(evaluate('paymentOrder', 'create')).toBe('Payment Order: Create');
		expect(evaluate('account', 'checkBatch')).toBe('Account: Check Batch Against Limits');
		expect(evaluate('paymentOrder', 'setReturnDetails')).toBe('Payment Order: Set Return Details');
		expect(subtitle).not.toContain('{{ {'); // n8n would read "{{ {" as the start of the expression's own braces
	});
});
