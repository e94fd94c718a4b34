/**
 * Create's sender at run time (issue 48): Sender User ID and Sender User ID for Rows Without One are resource
 * locators (From List by label, By ID). The id is sent, whichever way it was given (From List, By ID, an
 * expression, a plain ID or an expression saved before the field was a locator), and the user list (GET
 * /users, not in the reference) is never read: here it answers 404. The list itself:
 * methods/listSearchUsers.test.ts.
 */
import type { INodeParameters } from 'n8n-workflow';

import { walletOf } from '../../../../../harness/sandboxClient';
import { json, payment, useEnv } from '../../support';

const env = useEnv();

/** The sandbox answers GET /users with `status` and `body` once (a service without the list). */
const usersAnswer = (status: number, body: unknown) =>
	env.sb.services.traffic.faults.push({ method: 'GET', path: /^\/api\/v1\/users$/, pathSource: '^/api/v1/users$', count: 1, status, body });
const paths = async () => (await env.requests({ withSupportedAssets: true })).map((r) => `${r.method} ${r.path}`);

describe('at run time the id is sent, however the sender was given, and the list is never read', () => {
	/** Create with the sender given as `fromUserId`, two items whose `sender` column holds alice's id. */
	const sent = async (fromUserId: unknown) => {
		await env.mark();
		const out = await env.run(payment(env, { fromUserId } as INodeParameters), { items: [{ json: { sender: env.alice.id } }] });
		expect(json(out)[0].fromUserId).toBe(env.alice.id);
		const posts = (await env.requests()).filter((r) => r.method === 'POST');
		return { posts, all: await paths() };
	};

	test.each([
		['From List (the label shown, the id kept)', (id: string) => ({ __rl: true, mode: 'list', value: id, cachedResultName: `alice (${id})` })],
		['By ID', (id: string) => ({ __rl: true, mode: 'id', value: id })],
		['By ID, an expression', () => ({ __rl: true, mode: 'id', value: '={{ $json.sender }}' })],
		['a plain ID saved before the field was a locator', (id: string) => id],
		['an expression saved before the field was a locator', () => '={{ $json.sender }}'],
	])('%s', async (_how, given) => {
		usersAnswer(404, { message: 'no user list here' });
		const { posts, all } = await sent(given(env.alice.id));
		expect(posts.map((p) => (p.body as { fromUserId: string }).fromUserId)).toEqual([env.alice.id]);
		expect(all).not.toContain('GET /api/v1/users');
	});

	test('Map Automatically: Sender User ID for Rows Without One from the list pays the rows without a sender column with that id', async () => {
		const { fromUserId, toAddress, toChain, asset, amountUsd, memo, ...rest } = payment(env);
		void [fromUserId, toAddress, toChain, asset, amountUsd, memo];
		const parameters: INodeParameters = {
			...rest,
			dataMode: 'autoMapInputData',
			senderForAllRows: { __rl: true, mode: 'list', value: env.bob.id, cachedResultName: `bob (${env.bob.id})` },
		};
		const row = (n: number) => ({
			json: { Wallet: walletOf(env.alice, 'ethereum'), Chain: 'Ethereum', Asset: 'usdc', Amount: `${n}.00`, Invoice: `INV-${n}` },
		});
		await env.mark();
		const out = await env.run(parameters, { items: [row(1), row(2)] });
		expect(json(out).map((o) => o.fromUserId)).toEqual([env.bob.id, env.bob.id]);
		const posts = (await env.requests()).filter((r) => r.method === 'POST');
		expect(posts.map((p) => (p.body as { fromUserId: string }).fromUserId)).toEqual([env.bob.id, env.bob.id]);
	});
});
