/**
 * Derived keys where the execution context has no `customData` (n8n 1.x: it came to the contexts in
 * n8n 2.x). The lineage then goes through `$execution.customData` of the expression data, n8n-core's
 * own code over the same store (the execution's metadata), so n8n's Retry carries it as in 2.x.
 * Emulated by hiding the getter of n8n-core's ExecuteContext for this file; the retry is emulated
 * as in idempotency.test.ts (new execution id, mode "retry", the retried execution's run data).
 */
import { ExecuteContext } from 'n8n-core';
import { createRunExecutionData } from 'n8n-workflow';

import { LINEAGE_CUSTOM_DATA_KEY } from '../../../../nodes/shared/idempotency';
import { batchItems, type NodeEnv, json, orderCount, paymentBatch, retryBatchFailedAtItem3, startEnv } from '../support';

let env: NodeEnv;
beforeAll(async () => {
	Object.defineProperty(ExecuteContext.prototype, 'customData', { get: () => undefined, configurable: true });
	env = await startEnv();
});
afterAll(async () => {
	delete (ExecuteContext.prototype as unknown as Record<string, unknown>).customData;
	await env.sb.close();
});
beforeEach(async () => env.reset());

test('a run keeps its lineage in the execution metadata, through $execution.customData', async () => {
	const data = createRunExecutionData();
	await env.run(paymentBatch(env), { items: batchItems(['1']), executionId: '1', mode: 'webhook', runExecutionData: data });
	// The lineage was kept in the execution's metadata, where $execution.customData writes.
	expect(data.resultData.metadata?.[LINEAGE_CUSTOM_DATA_KEY]).toMatch(/\S/);
});

test('a retry of a batch that failed at item 3 creates only the missing order', async () => {
	const { ordersAfterFailure, out } = await retryBatchFailedAtItem3(env);
	expect(ordersAfterFailure).toBe(2);
	expect(json(out).map((o) => o.replayed)).toEqual([true, true, false]);
	expect(await orderCount(env)).toBe(3);
});

test('a retry whose execution holds no lineage fails before sending anything', async () => {
	await expect(env.run(paymentBatch(env), { items: batchItems(['6']), executionId: '2', mode: 'retry' })).rejects.toMatchObject({
		message: expect.stringContaining('Nothing was sent for this item'),
	});
	expect(await env.requests()).toEqual([]);
});
