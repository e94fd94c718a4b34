/** The per-item helpers of nodes/Clearinghouse/actions/parameters.ts and idempotencyKey.ts that need no running n8n. */
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { takeKey } from '../../nodes/Clearinghouse/actions/idempotencyKey';
import { bodyRecord, httpsUrl, recordWithoutSecrets, subaccountQuery, usdAmount } from '../../nodes/Clearinghouse/actions/parameters';
import { minimalContext } from '../support/minimalContext';

/** A context for helpers that only name the node and read parameters; it has no custom data. */
function context(parameters: Record<string, unknown> = {}): IExecuteFunctions {
	return Object.defineProperty(minimalContext(parameters), 'customData', {
		get(): never {
			throw new Error('no custom data here');
		},
	});
}

function thrown(run: () => unknown): unknown {
	try {
		run();
	} catch (error) {
		return error;
	}
	throw new Error('expected an error');
}

describe('one field error, one adapter', () => {
	test('a bad amount becomes the item error naming the field and the rule', () => {
		const error = thrown(() => usdAmount(context(), '-1', 3));
		expect(error).toBeInstanceOf(NodeOperationError);
		expect((error as NodeOperationError).message).toBe('Amount (USD) must be greater than 0');
		expect((error as NodeOperationError).context.itemIndex).toBe(3);
	});

	test('a bad business key becomes the item error naming the field and the rule', async () => {
		const error = await takeKey(context({ idempotencyKeyMode: 'custom' }), 2, 'POST /payment-orders', {
			value: 'x'.repeat(256),
			label: 'Invoice Number',
		}).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(NodeOperationError);
		expect((error as NodeOperationError).message).toBe('Invoice Number must be at most 255 characters (got 256)');
		expect((error as NodeOperationError).context.itemIndex).toBe(2);
	});

	test('a valid amount passes through', () => {
		expect(usdAmount(context(), '125.50', 0).text).toBe('125.5');
	});
});

test('recordWithoutSecrets keeps the fields of an object answer without secrets, and nothing else', () => {
	expect(recordWithoutSecrets({ id: 'e1', secret: 's', secretNext: 'n', status: 'active' })).toEqual({
		id: 'e1',
		status: 'active',
	});
	for (const body of [undefined, null, '', 'ok', 3, [{ secret: 's' }]]) expect(recordWithoutSecrets(body)).toBeUndefined();
});

test('bodyRecord keeps an object answer as it is (secrets included), and nothing else', () => {
	const body = { id: 'o1', status: 'CANCELED', secret: 'kept' };
	expect(bodyRecord(body)).toBe(body);
	for (const other of [undefined, null, '', 'ok', 3, [{ id: 'o1' }]]) expect(bodyRecord(other)).toBeUndefined();
});

test('subaccountQuery: the query of a read for a subaccount, none for this account', () => {
	expect(subaccountQuery({ subaccountId: ' 3f0c ' })).toEqual({ subaccountId: '3f0c' });
	expect(subaccountQuery({ subaccountId: '  ' })).toBeUndefined();
	expect(subaccountQuery({})).toBeUndefined();
});

test('httpsUrl takes https URLs only', () => {
	expect(httpsUrl(context(), 'https://example.com/hook', 0)).toBe('https://example.com/hook');
	expect(httpsUrl(context(), 'HTTPS://example.com/hook', 0)).toBe('HTTPS://example.com/hook');
	for (const url of ['http://example.com/hook', '', 'example.com', 'ftp://x']) {
		expect(() => httpsUrl(context(), url, 1)).toThrow(`URL must start with https:// (got "${url}")`);
	}
});
