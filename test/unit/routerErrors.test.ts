/**
 * The router makes whatever an operation throws the item's node error, so operations (and
 * keyedWriteError) leave errors that are not node errors as they are.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { keyedWriteError } from '../../nodes/Clearinghouse/actions/keyedSend';
import { resources, router } from '../../nodes/Clearinghouse/actions/router';
import { minimalContext, TEST_NODE } from '../support/minimalContext';

/** A resource whose one operation throws `error` for item 1 and answers the others. */
function throwingResource(error: unknown) {
	return {
		displayName: 'Test Only',
		operations: {
			description: [],
			boom: {
				description: [],
				execute: async (_ctx: IExecuteFunctions, itemIndex: number): Promise<IDataObject> => {
					if (itemIndex === 1) throw error;
					return { itemIndex };
				},
			},
		},
	};
}

function context(continueOnFail: boolean): IExecuteFunctions {
	return minimalContext(
		{ resource: 'testOnly', operation: 'boom', 'options.concurrency': 1 },
		{ getInputData: () => [{ json: {} }, { json: {} }, { json: {} }], continueOnFail: () => continueOnFail },
	);
}

afterEach(() => {
	delete resources.testOnly;
});

test('a plain error thrown by an operation becomes a NodeOperationError with the item index', async () => {
	resources.testOnly = throwingResource(new Error('socket hang up'));
	const failure = await router(context(false)).then(
		() => undefined,
		(error: unknown) => error,
	);
	expect(failure).toBeInstanceOf(NodeOperationError);
	// Item 0 succeeded before item 1 failed: the error says so, after the original text.
	expect((failure as NodeOperationError).message).toBe('Row 2 of 3, n8n item 1: socket hang up (1 other row of this run already succeeded)');
	expect((failure as NodeOperationError).context.itemIndex).toBe(1);
});

test("the rows that succeeded before a failure are told in the operation's own words when it gives them (succeededRows)", async () => {
	const resource = throwingResource(new Error('socket hang up'));
	resources.testOnly = {
		...resource,
		operations: {
			...resource.operations,
			boom: {
				...resource.operations.boom,
				succeededRows: (_ctx: IExecuteFunctions, records: IDataObject[]) => ({ made: `${records.length} widget made`, detail: 'it exists.' }),
			},
		},
	};
	const failure = (await router(context(false)).then(
		() => undefined,
		(error: unknown) => error,
	)) as NodeOperationError;
	expect(failure.message).toBe('Row 2 of 3, n8n item 1: socket hang up (1 other row of this run already succeeded: 1 widget made)');
	expect(failure.description).toMatch(/^Row 1 succeeded: it exists\./);
});

test('under Continue On Fail the plain error is the failed item, the others run', async () => {
	resources.testOnly = throwingResource(new Error('socket hang up'));
	const [output] = await router(context(true));
	expect(output.map((item) => item.json)).toEqual([{ itemIndex: 0 }, { error: 'socket hang up' }, { itemIndex: 2 }]);
	expect(output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
});

test('a node error keeps its class and gets the item index', async () => {
	const apiError = new NodeApiError(TEST_NODE, { message: 'Conflict' }, { httpCode: '409' });
	resources.testOnly = throwingResource(apiError);
	const failure = await router(context(false)).then(
		() => undefined,
		(error: unknown) => error,
	);
	expect(failure).toBe(apiError);
	expect(apiError.context.itemIndex).toBe(1);
});

describe('keyedWriteError', () => {
	test('leaves an error that is not a node error as it is (the router wraps it)', () => {
		const error = new Error('socket hang up');
		expect(keyedWriteError(error, 'key-1', 'payment order', 'custom')).toBe(error);
	});

	test('says a 409 of a payment order the way it happened, naming the key', () => {
		const error = new NodeApiError(TEST_NODE, { message: 'Conflict' }, { httpCode: '409' });
		expect(keyedWriteError(error, 'key-1', 'payment order', 'custom')).toBe(error);
		expect(error.message).toBe("This item's payment order already exists with other values: check it before paying again");
		expect(error.description).toContain('The idempotency key key-1 was already used');
		expect(error.description).toMatch(/To make a new one on purpose, use a new Business Key\.$/);
	});

	test('offers a new one as the key mode makes it: a new run derives a new key, a Business Key stays', () => {
		const error = new NodeApiError(TEST_NODE, { message: 'Conflict' }, { httpCode: '409' });
		keyedWriteError(error, 'key-1', 'payment order', 'derived');
		expect(error.description).toMatch(
			/Check the existing payment order \(Payment Order → Find by Keys with this key\)\. To make a new one on purpose, run the workflow anew\.$/,
		);
	});

	test('leaves a 409 of a reward rule that does not speak of idempotency as it is', () => {
		const error = new NodeApiError(TEST_NODE, { message: 'Library full' }, { httpCode: '409', message: 'Library full' });
		keyedWriteError(error, 'key-1', 'reward rule', 'custom');
		expect(error.message).toBe('Library full');
	});
});
