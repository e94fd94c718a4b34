/**
 * Derived keys across n8n's re-runs, inside n8n-core's ExecuteContext against the sandbox. n8n's
 * Retry from the executions list is emulated as n8n does it: a new execution id, mode "retry",
 * and the retried execution's run data (its custom data included). The real-n8n proof is
 * test/e2e/retry.test.ts.
 */
import { createRunExecutionData, type IRunExecutionData } from 'n8n-workflow';

import { DERIVED_NOTICES } from '../../../../nodes/Clearinghouse/actions/fields';
import { batchItems, json, node, orderCount, payment, paymentBatch, retryBatchFailedAtItem3, returnDetails, ruleset, useEnv } from '../support';
import { sleeps } from '../../../support/sleep';

// The transport's backoff between retries is recorded, not waited (the requests stay real).
jest.mock('n8n-workflow', () => jest.requireActual<typeof import('../../../support/sleep')>('../../../support/sleep').n8nWorkflowWithRecordedSleep());

const env = useEnv();

const paymentPosts = async () => (await env.requests()).filter((r) => r.method === 'POST' && r.path === '/api/v1/payment');

test('a retry of a batch that failed at item 3 creates only the missing order, and marks the existing ones', async () => {
	// The retry runs the item fixed (as "currently saved workflow" would after a fix).
	const { ordersAfterFailure, out, data } = await retryBatchFailedAtItem3(env);
	expect(ordersAfterFailure).toBe(2);
	// created: made in this lineage (the execution being retried made the first two); replayed: found, not made now.
	expect(json(out).map((o) => o.created)).toEqual([true, true, true]);
	expect(json(out).map((o) => o.replayed)).toEqual([true, true, false]);
	expect(await orderCount(env)).toBe(3);
	// A retry of the retry carries the same lineage: nothing new.
	const again = await env.run(paymentBatch(env), { items: batchItems(['1.25', '2.5', '3.75']), executionId: '3', mode: 'retry', runExecutionData: data });
	expect(json(again).map((o) => o.paymentOrderId)).toEqual(json(out).map((o) => o.paymentOrderId));
	expect(await orderCount(env)).toBe(3);
});

test('a retry with a changed amount for an item that already succeeded is a clear 409, no new order', async () => {
	const data = createRunExecutionData();
	await env.run(paymentBatch(env), { items: batchItems(['4']), executionId: '1', mode: 'webhook', runExecutionData: data });
	await expect(env.run(paymentBatch(env), { items: batchItems(['5']), executionId: '2', mode: 'retry', runExecutionData: data })).rejects.toMatchObject({
		httpCode: '409',
		message: "This item's payment order already exists with other values: check it before paying again",
	});
	expect(await orderCount(env)).toBe(1);
});

test('a retry whose execution holds no lineage fails before sending anything', async () => {
	await expect(env.run(paymentBatch(env), { items: batchItems(['6']), executionId: '2', mode: 'retry' })).rejects.toMatchObject({
		message: expect.stringContaining('Nothing was sent for this item'),
		description: expect.stringMatching(/crashed or was stopped before n8n saved its custom data.*Find by Keys.*Business Key/),
	});
	expect(await env.requests()).toEqual([]);
});

test('when n8n cannot keep the lineage (custom data full), the item fails before sending anything', async () => {
	const data: IRunExecutionData = createRunExecutionData();
	data.resultData.metadata = Object.fromEntries(Array.from({ length: 10 }, (_, n) => [`k${n}`, 'v']));
	await expect(env.run(paymentBatch(env), { items: batchItems(['6']), mode: 'webhook', runExecutionData: data })).rejects.toMatchObject({
		message: expect.stringContaining('Nothing was sent for this item'),
		description: expect.stringContaining('at most 10 entries'),
	});
	expect(await env.requests()).toEqual([]);
	// A Business Key does not need the lineage.
	await env.run(payment(env, { idempotencyKeyMode: 'custom', idempotencyKey: 'INV-full-1' }), { mode: 'webhook', runExecutionData: data });
	expect(await orderCount(env)).toBe(1);
});

test('two identical payments in two runs of a loop are two orders; a retry keeps one per run', async () => {
	const data = createRunExecutionData();
	const first = await env.run(paymentBatch(env), { items: batchItems(['7']), runIndex: 0, runExecutionData: data });
	const second = await env.run(paymentBatch(env), { items: batchItems(['7']), runIndex: 1, runExecutionData: data });
	expect(second[0].json.paymentOrderId).not.toBe(first[0].json.paymentOrderId);
	expect(await orderCount(env)).toBe(2);
	const retried = await env.run(paymentBatch(env), { items: batchItems(['7']), runIndex: 1, executionId: '5', mode: 'retry', runExecutionData: data });
	expect(retried[0].json.paymentOrderId).toBe(second[0].json.paymentOrderId);
	expect(await orderCount(env)).toBe(2);
});

test('Retry On Fail with Expires At = $now + 2 h after four commit-then-500 answers: the first request again, one order', async () => {
	await env.op('POST', '/faults', { method: 'POST', path: '^/api/v1/payment$', count: 4, commitThen500: true });
	const params = payment(env, { expiry: 'at', expiresAt: '={{ $now.plus({ hours: 2 }).toISO() }}' });
	sleeps.asked = [];
	const [item] = await env.run(params, { retryOnFail: { maxTries: 2 } });
	expect(sleeps.asked).toEqual([500, 1000, 2000]);
	const posts = await paymentPosts();
	expect(posts.map((r) => r.status)).toEqual([500, 500, 500, 500, 201]);
	expect(new Set(posts.map((r) => JSON.stringify(r.body))).size).toBe(1);
	// The first try of this execution made it: created (in this lineage), and a replayed answer.
	expect(item.json).toMatchObject({ created: true, replayed: true });
	expect(await orderCount(env)).toBe(1);
}, 30_000);

test('Create Receive Ruleset: a retry returns the same ruleset; a retry without lineage sends nothing', async () => {
	const data = createRunExecutionData();
	const params = ruleset(env);
	const [a] = await env.run(params, { runExecutionData: data });
	const [b] = await env.run(params, { executionId: '2', mode: 'retry', runExecutionData: data });
	expect(b.json.idempotencyKey).toBe(a.json.idempotencyKey);
	expect(b.json.id).toBe(a.json.id);
	await env.mark();
	await expect(env.run(params, { executionId: '3', mode: 'retry' })).rejects.toThrow(/Nothing was sent/);
	expect(await env.requests()).toEqual([]);
});

describe('Set Return Details under a retry', () => {
	const returnParams = (id: string, extra = {}) => returnDetails(env, id, extra);
	const newOrder = async () => String((await env.run(payment(env)))[0].json.paymentOrderId);

	test('with the Expected Revision given, a retry replays the recorded answer (no second replacement)', async () => {
		const id = await newOrder();
		const data = createRunExecutionData();
		const [a] = await env.run(returnParams(id, { options: { revision: 0 } }), { runExecutionData: data });
		const [b] = await env.run(returnParams(id, { options: { revision: 0 } }), { executionId: '2', mode: 'retry', runExecutionData: data });
		expect(b.json.idempotencyKey).toBe(a.json.idempotencyKey);
		expect(b.json.revision).toBe(1);
	});

	test('with the revision read again, a retry after success meets the 409, said as such', async () => {
		const id = await newOrder();
		const data = createRunExecutionData();
		await env.run(returnParams(id), { runExecutionData: data });
		await expect(env.run(returnParams(id), { executionId: '2', mode: 'retry', runExecutionData: data })).rejects.toMatchObject({
			httpCode: '409',
			message: expect.stringContaining("This item's return details were already sent with this key"),
		});
	});

	test("a stale revision (another 409) keeps the service's own answer", async () => {
		const id = await newOrder();
		await expect(env.run(returnParams(id, { options: { revision: 5 } }))).rejects.toMatchObject({
			httpCode: '409',
			message: expect.not.stringContaining('already sent with this key'),
		});
	});
});

test('Create Reward Rule: a retry returns the same rule; a changed definition in a retry is the clear 409', async () => {
	const definition = {
		measure: { type: 'daily_balance', metricKey: 'balance_usd' },
		condition: { type: 'always' },
		payout: { type: 'fixed', amount: '5.00' },
		limits: [{ type: 'cap_per_period', amount: '50.00' }],
	};
	const params = (amount: string) => ({
		resource: 'rewardRule',
		operation: 'create',
		idempotencyKeyMode: 'derived',
		name: 'Retry bonus',
		definition: JSON.stringify({ ...definition, payout: { type: 'fixed', amount } }),
	});
	const data = createRunExecutionData();
	const [a] = await env.run(params('5.00'), { runExecutionData: data });
	const [b] = await env.run(params('5.00'), { executionId: '2', mode: 'retry', runExecutionData: data });
	expect(b.json.id).toBe(a.json.id);
	await expect(env.run(params('6.00'), { executionId: '3', mode: 'retry', runExecutionData: data })).rejects.toMatchObject({
		httpCode: '409',
		message: "This item's reward rule already exists with other values: check it before writing again",
	});
});

test('one short Derived sentence, only on the writes that pay or change where money goes; the details are linked', () => {
	const shownFor = (operation: string) =>
		node.description.properties.filter((p) => p.name === 'derivedKeyNotice' && (p.displayOptions?.show?.operation as string[]).includes(operation));
	expect(shownFor('create').map((p) => p.displayOptions?.show?.resource)).toEqual([['paymentOrder']]);
	expect(shownFor('setReturnDetails')).toHaveLength(1);
	// Receive Ruleset → Create and Reward Rule → Create pay nobody: no notice.
	expect(node.description.properties.filter((p) => p.name === 'derivedKeyNotice')).toHaveLength(2);
	for (const p of node.description.properties.filter((x) => x.name === 'derivedKeyNotice')) {
		expect(p.type).toBe('notice');
		expect(p.displayOptions?.show?.idempotencyKeyMode).toEqual(['derived']);
		expect(Object.values(DERIVED_NOTICES)).toContain(p.displayName);
	}
	for (const sentence of Object.values(DERIVED_NOTICES)) {
		expect(sentence.length).toBeLessThanOrEqual(110);
		expect(sentence.split('. ')).toHaveLength(1);
		expect(sentence).toMatch(/new run gets new Derived keys/);
	}
	const modes = node.description.properties.filter((p) => p.name === 'idempotencyKeyMode');
	for (const mode of modes) {
		expect(mode.description).toMatch(
			/^How the key that stops this write from happening twice is chosen\. .*<a href="https:\/\/github\.com\/[^"]+#paying-safely-with-idempotency-keys">/,
		);
		for (const option of mode.options as Array<{ name: string }>) expect(option.name.length).toBeLessThanOrEqual(20);
	}
	// "pays again" only where the write pays.
	const derivedOf = (resource: string) =>
		modes
			.filter((m) => (m.displayOptions?.show?.resource as string[]).includes(resource))
			.map((m) => (m.options as Array<{ value: string; description: string }>).find((o) => o.value === 'derived')!.description);
	expect(derivedOf('paymentOrder')).toEqual([expect.stringContaining('pays again'), expect.stringContaining('writes again')]);
	expect(derivedOf('rewardRule')).toEqual([expect.stringContaining('writes again')]);
	expect(derivedOf('receiveRuleset')).toEqual([expect.stringContaining('writes again')]);
});
