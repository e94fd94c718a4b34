/**
 * sendKeyed(), the one door of every keyed write, over real HTTP inside n8n-core's real ExecuteContext:
 * the key where the service takes it, the first try's request on every try, and the words of a lost
 * answer and of a reused key for the record being written. A scripted server answers as each test says.
 */
jest.mock('n8n-workflow', () => jest.requireActual<typeof import('../support/sleep')>('../support/sleep').n8nWorkflowWithRecordedSleep());

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { keyRequest, sendKeyed, type KeyedSend } from '../../nodes/Clearinghouse/actions/keyedSend';
import { runNode } from '../../harness/n8nContexts';
import { probeNode } from '../support/probeNode';

interface Seen {
	url: string;
	headers: IncomingMessage['headers'];
	body: string;
}

let server: Server;
let origin: string;
let seen: Seen[] = [];
let handler: (res: ServerResponse) => void = (res) => res.end('{}');

beforeAll(async () => {
	server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c) => chunks.push(c));
		req.on('end', () => {
			seen.push({ url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString() });
			res.setHeader('content-type', 'application/json');
			handler(res);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));
beforeEach(() => {
	seen = [];
});

/** Runs sendKeyed in a probe node: with `key` handed in, or (undefined) taken from the node's `parameters`. */
async function keyedSend(key: string | undefined, send: KeyedSend<IDataObject>, parameters: INodeParameters = {}): Promise<IDataObject> {
	// The key's parameters as the keyed writes declare them (n8n reads only declared parameters).
	const node = probeNode('Keyed send probe', async (ctx) => ({ ...(await sendKeyed(ctx, 0, key === undefined ? send : { ...send, key })) }) as IDataObject, [
		{ displayName: 'Idempotency Key', name: 'idempotencyKeyMode', type: 'string', default: 'derived' },
		{ displayName: 'Business Key', name: 'idempotencyKey', type: 'string', default: '' },
	]);
	const [[item]] = await runNode(node, { parameters, credentials: { apiKey: 'sk_keyed_send', baseUrl: origin, rewardsUrl: `${origin}/rewards-host` } });
	return item.json;
}

async function failure(key: string, send: KeyedSend<IDataObject>): Promise<Error & { description?: string }> {
	try {
		await keyedSend(key, send);
	} catch (error) {
		return error as Error;
	}
	throw new Error('expected the keyed send to fail');
}

const order = (extra: Partial<KeyedSend<IDataObject>> = {}): KeyedSend<IDataObject> => ({
	record: 'payment order',
	method: 'POST',
	path: '/payment',
	keyIn: 'body',
	body: { amountUsd: '5.00' },
	...extra,
});

test('a payment order carries its key in the body; a reward rule in the Idempotency-Key header, on the rewards host', async () => {
	handler = (res) => res.end('{"ok":true}');
	expect((await keyedSend('INV-1', order())).response).toEqual({ ok: true });
	expect(JSON.parse(seen[0].body)).toEqual({ amountUsd: '5.00', idempotencyKey: 'INV-1' });
	expect(seen[0].headers['idempotency-key']).toBeUndefined();

	await keyedSend('rule-1', { record: 'reward rule', api: 'rewards', method: 'POST', path: '/rewards/rules', keyIn: 'header', body: { name: 'r' } });
	expect(seen[1].url).toBe('/rewards-host/api/v1/rewards/rules');
	expect(seen[1].headers['idempotency-key']).toBe('rule-1');
	expect(JSON.parse(seen[1].body)).toEqual({ name: 'r' });
});

test('a keyed payment order whose answer is lost is tried again with the same body, then says it may have made this payment order', async () => {
	handler = (res) => res.socket!.destroy();
	const error = await failure('INV-2', order());
	expect(seen).toHaveLength(4);
	expect(new Set(seen.map((s) => s.body)).size).toBe(1);
	expect(error.message).toBe(
		'The answer was lost: the service may have made this payment order. Only Retry of this execution (or a run with the same Business Key) is safe',
	);
	expect(error.description).toContain('Payment Order → Find by Keys (or Get Many) shows whether the order exists');
});

test('another keyed write whose answer is lost says it may have made this change', async () => {
	handler = (res) => res.socket!.destroy();
	const error = await failure('rs-1', { record: 'receive ruleset', method: 'POST', path: '/rulesets', keyIn: 'body', body: { name: 'x' } });
	expect(error.message).toBe(
		'The answer was lost: the service may have made this change. Only Retry of this execution (or a run with the same Business Key) is safe',
	);
	expect(error.description).toContain('the matching Get or Get Many operation shows whether it was made');
});

test("the service's 409 for a reused key: onKeyReused may answer instead; without an answer, the error says nothing new was made", async () => {
	handler = (res) => {
		res.statusCode = 409;
		res.end(JSON.stringify({ error: 'idempotency_conflict', message: 'Idempotency key reused with a different request' }));
	};
	const reused = await keyedSend('INV-3', order({ onKeyReused: async (sent) => ({ found: sent.body.idempotencyKey }) }));
	expect(reused.reused).toEqual({ found: 'INV-3' });

	const error = await failure('INV-3', order({ onKeyReused: async () => undefined }));
	expect(error.message).toBe("This item's payment order already exists with other values: check it before paying again");
	expect(error.description).toContain('The idempotency key INV-3 was already used for a payment order with a different request');
});

test('without a key handed in, sendKeyed takes the Business Key itself: a keyed write is one call', async () => {
	handler = (res) => res.end('{"ok":true}');
	const answer = await keyedSend(
		undefined,
		{ record: 'receive ruleset', method: 'POST', path: '/rulesets', keyIn: 'body', body: { name: 'x' } },
		{ idempotencyKeyMode: 'custom', idempotencyKey: 'rs-42' },
	);
	expect(answer.key).toBe('rs-42');
	expect(JSON.parse(seen[0].body)).toEqual({ name: 'x', idempotencyKey: 'rs-42' });
});

test('the request a Derived key is taken for names the method, the rewards host and the path with its IDs as given (unchanged for the existing writes)', () => {
	expect(keyRequest({ method: 'POST', path: '/payment' })).toBe('POST /payment');
	expect(keyRequest({ method: 'POST', path: '/rulesets' })).toBe('POST /rulesets');
	expect(keyRequest({ api: 'rewards', method: 'POST', path: '/rewards/rules' })).toBe('POST rewards /rewards/rules');
	const id = 'po:1.é';
	expect(keyRequest({ method: 'PUT', path: `/payment-orders/${encodeURIComponent(id)}/return-details` })).toBe(`PUT /payment-orders/${id}/return-details`);
});

test('the guard runs once the key is taken and before the send: a guard that refuses sends nothing; a refused key runs no guard', async () => {
	handler = (res) => res.end('{"ok":true}');
	const ran: string[] = [];
	const refusing = async () => {
		ran.push('guard');
		throw new Error('Chain "nochain" is not one the service supports');
	};
	await expect(keyedSend(undefined, order({ guard: refusing }), { idempotencyKeyMode: 'custom', idempotencyKey: 'INV-G' })).rejects.toThrow('Chain "nochain"');
	expect([ran, seen]).toEqual([['guard'], []]);
	// A Business Key that cannot be sent is refused before the guard (its reads included).
	ran.length = 0;
	await expect(keyedSend(undefined, order({ guard: refusing }), { idempotencyKeyMode: 'custom', idempotencyKey: '' })).rejects.toThrow(/Business Key/);
	expect([ran, seen]).toEqual([[], []]);
	await keyedSend(undefined, order({ guard: async () => void ran.push('guard') }), { idempotencyKeyMode: 'custom', idempotencyKey: 'INV-G' });
	expect([ran, seen.map((s) => JSON.parse(s.body).idempotencyKey)]).toEqual([['guard'], ['INV-G']]);
});
