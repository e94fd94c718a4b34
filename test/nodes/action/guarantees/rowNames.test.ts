/**
 * A failed row of a batch is named as a person sees it, by every operation: its position counted
 * from 1, and its Business Key where the operation writes with one, before the cause; the message
 * stays at most two sentences. Each batch here is two rows over real HTTP against the sandbox, the
 * second with a Business Key pasted with an invisible character (refused before it is sent).
 */
import type { INodeParameters } from 'n8n-workflow';

import { createOrder, payment, returnDetails, ruleset, useEnv } from '../support';

const env = useEnv();

const BAD_KEY = 'INV-2\u200b';
const items = () => [{ json: { key: 'INV-1' } }, { json: { key: BAD_KEY } }];
/** A Business Key from each row's `key`, one row at a time. */
const byKey = (): INodeParameters => ({ idempotencyKeyMode: 'custom', idempotencyKey: '={{ $json.key }}', options: { concurrency: 1 } });

/** Sentences of a message: a full stop followed by a capital starts a new one. */
const sentences = (message: string) => message.split(/(?<=\.) (?=[A-Z])/);

let execution = 100;
async function failedRow(parameters: INodeParameters): Promise<string> {
	try {
		// Each batch its own execution, as in n8n (a node's first try of a key is kept per execution).
		await env.run(parameters, { items: items(), mode: 'webhook', executionId: String(++execution) });
	} catch (error) {
		return (error as Error).message;
	}
	throw new Error('expected the batch to fail at its second row');
}

const definition = {
	measure: { type: 'daily_balance', metricKey: 'balance_usd' },
	condition: { type: 'always' },
	payout: { type: 'fixed', amount: '5.00' },
	limits: [{ type: 'cap_per_period', amount: '50.00' }],
};

test('Payment Order → Create names the bad row "Row 2 of 2 (its Business Key)", in at most two sentences, and sends no row', async () => {
	// Create checks every row before it sends the first: the row with the bad key stops the whole batch.
	const message = await failedRow(payment(env, byKey()));
	expect(message.startsWith(`Row 2 of 2 (${BAD_KEY}), n8n item 1: `)).toBe(true);
	expect(message).toMatch(/invisible/);
	expect(sentences(message).length).toBeLessThanOrEqual(2);
	expect(await env.requests()).toEqual([]);
});

test.each([
	['Payment Order → Set Return Details', async () => returnDetails(env, await createOrder(env), byKey())],
	['Receive Ruleset → Create', async () => ruleset(env, byKey())],
	[
		'Reward Rule → Create',
		async () => ({ resource: 'rewardRule', operation: 'create', name: 'Balance bonus', definition: JSON.stringify(definition), ...byKey() }),
	],
])('%s names the failed row "Row 2 of 2 (its Business Key)" and says at most two sentences', async (_name, parameters) => {
	const message = await failedRow(await parameters());
	expect(message.startsWith(`Row 2 of 2 (${BAD_KEY}), n8n item 1: `)).toBe(true);
	expect(message).toMatch(/invisible/);
	expect(message).toMatch(/\(1 other row of this run already succeeded/);
	expect(sentences(message).length).toBeLessThanOrEqual(2);
});

test('an operation without a Business Key names the row by its position', async () => {
	const id = await createOrder(env);
	const rows = [{ json: { id } }, { json: { id: '00000000-0000-4000-8000-000000000000' } }];
	const run = env.run(
		{ resource: 'paymentOrder', operation: 'get', paymentOrderId: { mode: 'id', value: '={{ $json.id }}' }, options: { concurrency: 1 } },
		{ items: rows },
	);
	await expect(run).rejects.toThrow(/^Row 2 of 2, n8n item 1: Payment Order 0{8}-0{4}-4000-8000-0{12} not found/);
});
