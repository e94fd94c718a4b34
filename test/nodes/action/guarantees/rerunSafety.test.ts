/**
 * Re-run safety in n8n-core's real execute context over real HTTP to the sandbox: a node error after
 * some items succeeded says what this run already did, and strict input stops bad values before
 * any request is sent.
 */
import type { NodeApiError } from 'n8n-workflow';

import { testCredential } from '../../../../harness/n8nContexts';
import { walletOf } from '../../../../harness/sandboxClient';
import { createOrder, orderCount, payment, useEnv } from '../support';
import { repeatedInDescription } from '../../../support/repeats';

const env = useEnv();

async function failure(promise: Promise<unknown>): Promise<NodeApiError> {
	try {
		await promise;
	} catch (error) {
		// The details (shown under the headline in n8n's error view) do not say the headline again.
		expect(repeatedInDescription((error as NodeApiError).message, (error as NodeApiError).description)).toEqual([]);
		return error as NodeApiError;
	}
	throw new Error('expected the node to fail');
}

const dead = '0x000000000000000000000000000000000000dead';

describe('a node error after some items succeeded says what this run did', () => {
	test('Create, item 3 refused: the error says 2 orders were made by this run, where to see them, and not to re-run blindly', async () => {
		const items = [1, 2, 3].map((n) => ({ json: { n, to: n === 3 ? dead : walletOf(env.bob, 'ethereum') } }));
		const error = await failure(env.run(payment(env, { toAddress: '={{ $json.to }}', amountUsd: '={{ $json.n }}', options: { concurrency: 1 } }), { items }));
		expect(error.context.itemIndex).toBe(2);
		// The row as a person sees it (from 1, with its memo) and n8n's own zero-based number for it, once.
		expect(error.message).toMatch(
			/^Row 3 of 3 \(invoice 42\), n8n item 2: Recipient Address "0x0+dead" on Ethereum is not a registered wallet .* \(2 other rows of this run already succeeded: 2 payment orders made or found\)$/,
		);
		expect(error.description).toMatch(
			/^Rows 1 and 2 \(invoice 42, invoice 42\) succeeded: 2 payment orders made by this run and 0 found from an earlier run \(same key\)\. They exist in the service .*Payment Order → Find by Keys .*Do not run the whole batch anew with Derived keys/,
		);
		// The service's own sentence and status are still there, after the run's progress.
		expect(error.description).toMatch(/\n\nThe service said: ".*" \(API code recipient_not_active, HTTP 400, field toAddress\)\.$/);
		expect(await orderCount(env)).toBe(2);
	});

	test('Create with Business Keys run again after the same failure: the error counts the orders found from the earlier run', async () => {
		const items = [1, 2, 3].map((n) => ({ json: { n, to: n === 3 ? dead : walletOf(env.bob, 'ethereum') } }));
		const parameters = payment(env, {
			toAddress: '={{ $json.to }}',
			amountUsd: '={{ $json.n }}',
			idempotencyKeyMode: 'custom',
			idempotencyKey: '={{ "rerun-safety-" + $json.n }}',
			options: { concurrency: 1 },
		});
		await failure(env.run(parameters, { items }));
		const again = await failure(env.run(parameters, { items }));
		expect(again.message).toMatch(
			/^Row 3 of 3 \(rerun-safety-3\), n8n item 2: .*\(2 other rows of this run already succeeded: 2 payment orders made or found\)$/,
		);
		expect(again.description).toMatch(
			/^Rows 1 and 2 \(rerun-safety-1, rerun-safety-2\) succeeded: 0 payment orders made by this run and 2 found from an earlier run/,
		);
		// Advice for Derived keys has no place beside Business Keys.
		expect(again.description).not.toMatch(/Derived/);
		expect(again.description).toContain('run again with the same Business Keys');
		expect(await orderCount(env)).toBe(2);
	});

	test('the first item failing: no progress note (nothing succeeded)', async () => {
		const error = await failure(env.run(payment(env, { toAddress: dead })));
		expect(error.message).toMatch(/^Recipient Address "0x0+dead" on Ethereum is not a registered wallet .*once the service has made it ACTIVE\.$/);
		expect(error.description).not.toMatch(/succeeded/);
	});

	test('another operation (Cancel): the count of items that succeeded, and to check before running them again', async () => {
		const first = await createOrder(env);
		const items = [{ json: { id: first } }, { json: { id: 'no-such-order' } }];
		const error = await failure(
			env.run({ resource: 'paymentOrder', operation: 'cancel', paymentOrderId: { __rl: true, mode: 'id', value: '={{ $json.id }}' }, reason: 'x' }, { items }),
		);
		expect(error.message).toMatch(/^Row 2 of 2, n8n item 1: Payment Order.*not found \(1 other row of this run already succeeded\)$/);
		expect(error.description).toMatch(
			/^Row 1 succeeded: their results are not in the output because the node failed\. Check them \(Get or Get Many\) before running the rows again/,
		);
	});
});

describe('strict input: refused before any request', () => {
	test.each(['..', '.', '../cancel', '%2e%2e', 'abc def'])('Cancel with the Payment Order "%s" sends nothing', async (value) => {
		await createOrder(env);
		const error = await failure(env.run({ resource: 'paymentOrder', operation: 'cancel', paymentOrderId: { __rl: true, mode: 'id', value }, reason: 'x' }));
		expect(error.message).toMatch(/^Payment Order (must be an ID|is required)/);
		expect(await env.requests()).toEqual([]);
	});

	test('Webhook Delivery → Replay and Receive Ruleset → Rename check their IDs the same way', async () => {
		const replay = await failure(env.run({ resource: 'webhookDelivery', operation: 'replay', deliveryId: '..' }));
		expect(replay.message).toBe('Delivery ID must be an ID, not ".." (a path step)');
		const rename = await failure(env.run({ resource: 'receiveRuleset', operation: 'rename', rulesetId: 'a/../b', name: 'n' }));
		expect(rename.message).toMatch(/^Ruleset ID must be an ID such as the one Get Many returns: it may not contain "\/"/);
		expect(await env.requests()).toEqual([]);
	});

	test.each([
		['1_000', 'such as 1250.50: no underscores'],
		['1e3', 'such as 1250.50: no exponent'],
		['1,000.50', 'write 1000.50 \\(got "1,000.50"; no thousands separators'],
	])('Create with the amount "%s" sends nothing', async (amountUsd, rule) => {
		const error = await failure(env.run(payment(env, { amountUsd })));
		expect(error.message).toMatch(new RegExp(`^Amount \\(USD\\) must be plain decimal text:? ${rule}`));
		expect(await env.requests()).toEqual([]);
	});

	test.each([
		['a zero-width space', '={{ "INV-1\u200b" + "001" }}', /invisible, space-like or control character U\+200B/],
		[
			'an accent written as a combining mark (not NFC)',
			'={{ "Cafe\u0301-7" }}',
			/composed form \(NFC\).*at position 4 it holds U\+0065 U\+0301, which NFC writes as U\+00E9/,
		],
		['NaN from an expression', '={{ Number("x") }}', /must be text, or a whole number|must not be "NaN"/],
		['a huge number from an expression', '={{ 1e21 }}', /must be text, or a whole number up to/],
	])('Create with a Business Key holding %s sends nothing', async (_what, idempotencyKey, rule) => {
		const error = await failure(env.run(payment(env, { idempotencyKeyMode: 'custom', idempotencyKey })));
		expect(error.message).toMatch(/^Business Key /);
		expect(error.message).toMatch(rule);
		expect(await env.requests()).toEqual([]);
	});
});

describe("the credential's Test button follows the same URL rules", () => {
	test('a loopback http:// Base URL (the sandbox) is tested as before', async () => {
		expect(await testCredential({ apiKey: env.sb.apiKey, baseUrl: `${env.sb.mainUrl}/api/v1/` })).toEqual({ statusCode: 200 });
	});

	test.each([
		['http:// to another machine', 'http://api.example.com'],
		['a query part', 'QUERY'],
		['a fragment', 'FRAGMENT'],
	])('a Base URL with %s sends nothing with the key: the test asks a host that cannot resolve', async (_what, given) => {
		const baseUrl = given === 'QUERY' ? `${env.sb.mainUrl}?region=eu` : given === 'FRAGMENT' ? `${env.sb.mainUrl}#x` : given;
		const failed = await testCredential({ apiKey: env.sb.apiKey, baseUrl }).then(
			() => undefined,
			(error: { cause?: { code?: string; hostname?: string } }) => error.cause,
		);
		expect(failed).toMatchObject({ code: 'ENOTFOUND', hostname: 'base-url-must-be-https-with-no-query.invalid' });
		expect(await env.requests()).toEqual([]);
	});
});
