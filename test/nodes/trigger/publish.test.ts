/**
 * checkExists / create / delete against the sandbox, in n8n-core's real HookContext. Deliveries
 * that prove a kept secret works are signed by the sandbox itself (its test-event sender).
 */
import { HookContext } from 'n8n-core';

import { N8nStaticData, secretOf, trigger, type TriggerUnderTest } from '../../../harness/inProcessTrigger';
import { activate, api, deactivate, endpointsAt, hook, operator, requestsSince, useTriggerSandbox, WebhookServer } from './support';

const { sb, receiver } = useTriggerSandbox();
let counter = 0;

function newTrigger(parameters = {}, mode?: 'webhook' | 'manual'): TriggerUnderTest {
	const t: TriggerUnderTest = {
		parameters,
		workflowId: `lc-${++counter}-${Date.now()}`,
		staticData: new N8nStaticData(),
		mode,
	};
	receiver.serve(t);
	return t;
}

/** The sandbox signs and sends a webhook.ping to the endpoint now; true when our node answered 2xx. */
async function pingDelivered(endpointId: string): Promise<boolean> {
	const res = await api(sb, 'POST', `/webhooks/endpoints/${endpointId}/test`);
	expect(res.status).toBe(200);
	return res.body.delivered === true;
}

describe('create', () => {
	it('registers the webhook URL for payment_order with a description naming workflow and node, and keeps id, secret and URL', async () => {
		const t = newTrigger();
		const since = (await operator(sb, 'GET', 'requests?since=0')).lastSeq;
		expect(await activate(sb, receiver, t)).toBe('created');

		const posts = (await requestsSince(sb, since)).filter((r) => r.method === 'POST' && r.path === '/api/v1/webhooks/endpoints');
		expect(posts).toHaveLength(1);
		const body = typeof posts[0].body === 'string' ? JSON.parse(posts[0].body) : posts[0].body;
		expect(body).toEqual({
			url: receiver.urlOf(t),
			description: expect.stringContaining(t.workflowId),
			eventTypes: ['payment_order'],
		});
		expect(body.description).toContain('Clearinghouse test workflow');
		expect(body.description).toContain('Clearinghouse Trigger');

		const state = t.staticData.node();
		expect(state.url).toBe(receiver.urlOf(t));
		// Kept sealed: nothing in the static data (which editors and exports see) is the secret.
		expect(state.secret).toBeUndefined();
		expect(state.secretBox).toMatch(/^chbox1\./);
		expect(JSON.stringify(t.staticData.saved)).not.toContain('whsec_');
		expect(secretOf(sb, t)).toMatch(/^whsec_[0-9a-f]+$/);
		const live = await endpointsAt(sb, receiver.urlOf(t));
		expect(live.map((e) => e.id)).toEqual([state.endpointId]);

		// The kept secret is the one the service signs with.
		expect(await pingDelivered(state.endpointId as string)).toBe(true);
	});

	it('adopts instead of duplicating when the create was committed but answered 500', async () => {
		const t = newTrigger();
		const since = (await operator(sb, 'GET', 'requests?since=0')).lastSeq;
		await operator(sb, 'POST', 'faults', { method: 'POST', path: '^/api/v1/webhooks/endpoints$', count: 1, commitThen500: true });
		try {
			await trigger.webhookMethods.default.create.call(hook(sb, receiver, t));
		} finally {
			await operator(sb, 'DELETE', 'faults');
		}
		const posts = (await requestsSince(sb, since)).filter((r) => r.method === 'POST' && r.path === '/api/v1/webhooks/endpoints');
		expect(posts.map((r) => r.status)).toEqual([500]);
		const live = await endpointsAt(sb, receiver.urlOf(t));
		expect(live).toHaveLength(1);
		expect(t.staticData.node().endpointId).toBe(live[0].id);
		expect(await pingDelivered(live[0].id)).toBe(true);
	});

	it('explains the https/public-host rule when the service refuses the URL', async () => {
		const t = newTrigger();
		const ctx = hook(sb, receiver, t);
		// A URL the sandbox refuses even with loopback allowed.
		(ctx as unknown as { getNodeWebhookUrl: () => string }).getNodeWebhookUrl = () => 'ftp://example.com/hook';
		await expect(trigger.webhookMethods.default.create.call(ctx)).rejects.toMatchObject({
			description: expect.stringContaining('WEBHOOK_URL'),
		});
		expect(t.staticData.node().endpointId).toBeUndefined();
	});
});

describe('credential reads', () => {
	it('each call n8n makes (checkExists, create) reads the credential once: the secret box and the requests share it', async () => {
		const t = newTrigger();
		// n8n loads, decrypts and (by default) takes an expression isolate for every read.
		const reads = jest.spyOn(HookContext.prototype, 'getCredentials');
		try {
			expect(await activate(sb, receiver, t)).toBe('created');
			expect(reads).toHaveBeenCalledTimes(2);
			reads.mockClear();
			expect(await activate(sb, receiver, t)).toBe('kept');
			expect(reads).toHaveBeenCalledTimes(1);
		} finally {
			reads.mockRestore();
		}
		expect(secretOf(sb, t)).toMatch(/^whsec_/);
	});
});

describe('checkExists', () => {
	it('keeps a confirmed endpoint without touching it', async () => {
		const t = newTrigger();
		await activate(sb, receiver, t);
		const { lastRecovery: _first, ...before } = t.staticData.node();
		expect(await activate(sb, receiver, t)).toBe('kept');
		const { lastRecovery, ...after } = t.staticData.node();
		expect(after).toEqual(before);
		// The catch-up looked at the log and found nothing to replay.
		expect(lastRecovery).toMatchObject({ replayed: 0, eventsMissed: 0 });
		expect(await endpointsAt(sb, receiver.urlOf(t))).toHaveLength(1);
	});

	it('clears the state and re-creates when the endpoint vanished', async () => {
		const t = newTrigger();
		await activate(sb, receiver, t);
		const oldId = t.staticData.node().endpointId as string;
		expect((await api(sb, 'DELETE', `/webhooks/endpoints/${oldId}`)).status).toBe(200);

		expect(await trigger.webhookMethods.default.checkExists.call(hook(sb, receiver, t))).toBe(false);
		expect(t.staticData.node().endpointId).toBeUndefined();
		expect(t.staticData.node().secret).toBeUndefined();
		expect(t.staticData.node().secretBox).toBeUndefined();

		await trigger.webhookMethods.default.create.call(hook(sb, receiver, t));
		const live = await endpointsAt(sb, receiver.urlOf(t));
		expect(live).toHaveLength(1);
		expect(live[0].id).not.toBe(oldId);
		expect(t.staticData.node().endpointId).toBe(live[0].id);
		expect(await pingDelivered(live[0].id)).toBe(true);
	});

	it('adopts the endpoint at its URL after the state was lost, with a fresh secret, leaving one endpoint', async () => {
		const t = newTrigger();
		await activate(sb, receiver, t);
		const first = { ...t.staticData.node(), secret: secretOf(sb, t) } as Record<string, unknown>;

		t.staticData.saved = {}; // static data lost (workflow re-imported, database restored…)
		expect(await activate(sb, receiver, t)).toBe('kept');
		const adopted = t.staticData.node();
		expect(adopted.endpointId).toBe(first.endpointId);
		expect(secretOf(sb, t)).toMatch(/^whsec_/);
		expect(secretOf(sb, t)).not.toBe(first.secret);
		expect(await endpointsAt(sb, receiver.urlOf(t))).toHaveLength(1);

		// The rotation was immediate: only the new secret signs, and our node accepts it.
		expect(await pingDelivered(adopted.endpointId as string)).toBe(true);
		const attempts = (await operator(sb, 'GET', `webhooks/attempts?endpointId=${adopted.endpointId}`)).attempts;
		const header = attempts[attempts.length - 1].headers['x-service-webhook-signature'] as string;
		expect(header.match(/v1=/g)).toHaveLength(1);
	});

	it('seals a plain secret left by an earlier version (migration on publish), keeping the endpoint', async () => {
		const t = newTrigger();
		await activate(sb, receiver, t);
		const { endpointId, url } = t.staticData.node();
		const secret = secretOf(sb, t)!;
		// What versions before the box stored.
		t.staticData.saved['node:Clearinghouse Trigger'] = { endpointId, secret, url };

		expect(await activate(sb, receiver, t)).toBe('kept');
		expect(t.staticData.node()).toEqual({ endpointId, url, secretBox: expect.stringMatching(/^chbox1\./), lastRecovery: expect.any(Object) });
		expect(secretOf(sb, t)).toBe(secret);
		expect(await pingDelivered(endpointId as string)).toBe(true);
	});

	it('renews the secret under a changed API key (the old box no longer opens), keeping the endpoint', async () => {
		const t = newTrigger();
		await activate(sb, receiver, t);
		const first = { ...t.staticData.node(), secret: secretOf(sb, t) } as Record<string, unknown>;
		t.apiKey = (await operator(sb, 'POST', 'api-keys', {})).apiKey;
		expect(secretOf(sb, t)).toBeUndefined();

		expect(await activate(sb, receiver, t)).toBe('kept');
		expect(t.staticData.node().endpointId).toBe(first.endpointId);
		expect(secretOf(sb, t)).toMatch(/^whsec_/);
		expect(secretOf(sb, t)).not.toBe(first.secret);
		expect(await endpointsAt(sb, receiver.urlOf(t))).toHaveLength(1);
		expect(await pingDelivered(first.endpointId as string)).toBe(true);
	});

	it('re-enables a DISABLED endpoint', async () => {
		const t = newTrigger();
		await activate(sb, receiver, t);
		const id = t.staticData.node().endpointId as string;
		expect((await api(sb, 'PATCH', `/webhooks/endpoints/${id}`, { status: 'DISABLED' })).body.status).toBe('DISABLED');

		expect(await activate(sb, receiver, t)).toBe('kept');
		expect((await api(sb, 'GET', `/webhooks/endpoints/${id}`)).body.status).toBe('ENABLED');
		expect(await pingDelivered(id)).toBe(true);
	});

	it('forgets, never deletes, a stored endpoint for a URL this n8n no longer serves: production and a restored copy with another URL', async () => {
		const production = newTrigger();
		await activate(sb, receiver, production);
		const id = production.staticData.node().endpointId as string;
		// A copy of production's database restored elsewhere: same workflow, same static data and
		// credential, another WEBHOOK_URL (here: another receiver, on another port).
		const elsewhere = new WebhookServer(sb);
		await elsewhere.start();
		try {
			const copy: TriggerUnderTest = { ...production, staticData: new N8nStaticData() };
			copy.staticData.saved = JSON.parse(JSON.stringify(production.staticData.saved));
			elsewhere.serve(copy);
			expect(elsewhere.urlOf(copy)).not.toBe(receiver.urlOf(production));

			expect(await activate(sb, elsewhere, copy)).toBe('created');
			expect(copy.staticData.node().endpointId).not.toBe(id);
			// Production's endpoint is untouched and still delivers to production.
			const kept = await api(sb, 'GET', `/webhooks/endpoints/${id}`);
			expect(kept.status).toBe(200);
			expect(kept.body).toMatchObject({ url: receiver.urlOf(production), status: 'ENABLED', deletedAt: null });
			expect(await pingDelivered(id)).toBe(true);

			// Unpublishing the copy deletes only the copy's own endpoint.
			expect(await deactivate(sb, elsewhere, copy)).toBe(true);
			expect((await api(sb, 'GET', `/webhooks/endpoints/${id}`)).status).toBe(200);
			expect(await endpointsAt(sb, elsewhere.urlOf(copy))).toHaveLength(0);
			expect(await pingDelivered(id)).toBe(true);
		} finally {
			await elsewhere.close();
		}
	});

	it('unpublishing with a stored endpoint for another URL leaves that endpoint alone', async () => {
		const t = newTrigger();
		await activate(sb, receiver, t);
		const id = t.staticData.node().endpointId as string;
		(t.staticData.saved['node:Clearinghouse Trigger'] as Record<string, unknown>).url = 'https://other-n8n.example.com/webhook/x/webhook';
		expect(await deactivate(sb, receiver, t)).toBe(true);
		// Not deleted by id (it may be another n8n's)…
		expect(t.staticData.node().endpointId).toBeUndefined();
		// …but the sweep of our own URL still removes it, since it delivers to us.
		expect((await api(sb, 'GET', `/webhooks/endpoints/${id}`)).status).toBe(404);
	});

	it('removes extra endpoints at its URL (left by an earlier failure)', async () => {
		const t = newTrigger();
		await activate(sb, receiver, t);
		const stray = await api(sb, 'POST', '/webhooks/endpoints', {
			url: receiver.urlOf(t),
			description: 'stray',
			eventTypes: ['payment_order'],
		});
		expect(stray.status).toBeLessThan(300);
		expect(await endpointsAt(sb, receiver.urlOf(t))).toHaveLength(2);

		expect(await activate(sb, receiver, t)).toBe('kept');
		const live = await endpointsAt(sb, receiver.urlOf(t));
		expect(live.map((e) => e.id)).toEqual([t.staticData.node().endpointId]);
	});
});

describe('delete', () => {
	it('deletes the endpoint and clears the state', async () => {
		const t = newTrigger();
		await activate(sb, receiver, t);
		const id = t.staticData.node().endpointId as string;
		expect(await deactivate(sb, receiver, t)).toBe(true);
		expect((await api(sb, 'GET', `/webhooks/endpoints/${id}`)).status).toBe(404);
		expect(t.staticData.node()).toEqual({});
	});

	it('clears the state when the API says the endpoint is already gone (404)', async () => {
		const t = newTrigger();
		await activate(sb, receiver, t);
		const id = t.staticData.node().endpointId as string;
		await api(sb, 'DELETE', `/webhooks/endpoints/${id}`);
		const since = (await operator(sb, 'GET', 'requests?since=0')).lastSeq;

		expect(await deactivate(sb, receiver, t)).toBe(true);
		expect(t.staticData.node()).toEqual({});
		const del = (await requestsSince(sb, since)).filter((r) => r.method === 'DELETE');
		expect(del.map((r) => r.status)).toEqual([404]);
	});

	it('removes an endpoint at its URL even when the state was lost', async () => {
		const t = newTrigger();
		await activate(sb, receiver, t);
		t.staticData.saved = {};
		expect(await deactivate(sb, receiver, t)).toBe(true);
		expect(await endpointsAt(sb, receiver.urlOf(t))).toHaveLength(0);
	});
});

describe('many cycles', () => {
	it('publish / restart / unpublish / state loss, repeated, never leaves more than one endpoint', async () => {
		const t = newTrigger();
		const url = receiver.urlOf(t);
		for (let round = 0; round < 4; round++) {
			await activate(sb, receiver, t); // publish
			await activate(sb, receiver, t); // re-publish without unpublish
			expect(await endpointsAt(sb, url)).toHaveLength(1);
			if (round % 2 === 1) t.staticData.saved = {}; // state lost while published
			await activate(sb, receiver, t);
			expect(await endpointsAt(sb, url)).toHaveLength(1);
			expect(await pingDelivered(t.staticData.node().endpointId as string)).toBe(true);
			await deactivate(sb, receiver, t); // unpublish
			expect(await endpointsAt(sb, url)).toHaveLength(0);
		}
	});
});

describe('test webhooks (the editor\'s "listen for test event")', () => {
	it('register the /webhook-test/ URL beside the production one and delete only their own', async () => {
		const prod = newTrigger();
		const test: TriggerUnderTest = { ...prod, mode: 'manual', staticData: new N8nStaticData() };
		receiver.serve(test);
		await activate(sb, receiver, prod);

		// n8n starts a test registration with empty static data.
		expect(await activate(sb, receiver, test)).toBe('created');
		expect(receiver.urlOf(test)).toContain('/webhook-test/');
		expect(test.staticData.node().url).toBe(receiver.urlOf(test));
		expect(await pingDelivered(test.staticData.node().endpointId as string)).toBe(true);

		await deactivate(sb, receiver, test);
		expect(await endpointsAt(sb, receiver.urlOf(test))).toHaveLength(0);
		const live = await endpointsAt(sb, receiver.urlOf(prod));
		expect(live.map((e) => e.id)).toEqual([prod.staticData.node().endpointId]);
	});
});
