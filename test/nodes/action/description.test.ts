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
