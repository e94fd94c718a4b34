/**
 * No event lost while n8n is down, in a real n8n 2.40.7. The sandbox compresses the
 * service's half-day retry schedule (timeScale 100 000: a delivery ends FAILED in about a second),
 * keeps the service's rules (auto-disable after 10 FAILED deliveries, then SKIPPED) and a 10 s
 * attempt timeout. The trigger has a `trigger()` beside its webhook (activation.ts): n8n then
 * re-activates it at `n8n start`, calling checkExists, which re-enables the endpoint and replays
 * what was missed, with no action by the user (asserted below with n8n's own debug log lines and
 * the service's request log). Where n8n gives the trigger no call (the endpoint disabled while n8n
 * stays up), the shipped example workflow "Keep my trigger healthy" (Schedule → Webhook Endpoint →
 * Recover → report) recovers, run here with `n8n execute`. Executions are counted from n8n's own
 * database.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { loadExample, withOutbox } from '../../harness/examples';
import { nodeItems } from '../../harness/executions';
import { executeResult, N8nInstance, sleep, type WorkflowInput } from '../../harness/n8nProcess';
import { freePort } from '../../harness/ports';
import { sandboxCredential } from '../../harness/sandbox';
import { startSandboxStage, stopAll, type SandboxStage } from '../../harness/stage';
import { pollFor, type Probe } from '../../harness/wait';
import { graph, TRIGGER_NODE } from '../../harness/workflows';

jest.setTimeout(600_000);

const WORKFLOW_ID = 'e2eOutageFlow001';
const WEBHOOK_ID = 'b6a7f0c2-5d1e-4a8e-9f53-3c2d7e2e0023';
const TRIGGER = 'Clearinghouse Trigger';
const WEBHOOK_PATH = `${WEBHOOK_ID}/webhook`;
/** Ten years of service time: no order expires during the test, so each order makes exactly one event. */
const LONG_MS = 10 * 365 * 86400_000;

describe('no event lost while n8n is down (real n8n)', () => {
	let stage: SandboxStage;
	let n8n: N8nInstance;
	let healthy: WorkflowInput;
	let endpointId: string;

	/** Each wait here may span an n8n start or a retry schedule: two minutes unless told. */
	const waitFor = <T>(what: string, probe: Probe<T>, timeoutMs = 120_000) => pollFor(what, probe, timeoutMs);
	const endpoint = () => stage.operator.api('GET', `/webhooks/endpoints/${endpointId}`);
	const deliveries = async (): Promise<any[]> => (await stage.operator.api('GET', `/webhooks/deliveries?endpointId=${endpointId}&limit=1000`)).deliveries;
	const settled = async () => (await deliveries()).every((d) => d.status !== 'PENDING' && d.status !== 'DISPATCHED');
	async function createOrders(n: number, amountUsd: number): Promise<void> {
		const {
			users: [alice, bob],
		} = await stage.operator.state();
		for (let i = 0; i < n; i++) {
			await stage.operator.api('POST', '/payment', {
				fromUserId: alice.id,
				toAddress: bob.wallets[0].address,
				toChain: bob.wallets[0].chain,
				asset: 'USDC',
				amountUsd: amountUsd + i,
				expiresAt: new Date(Date.now() + LONG_MS).toISOString(),
				idempotencyKey: `e2e-outage-${randomBytes(6).toString('hex')}`,
			});
		}
	}
	/** Runs per event id, from the trigger's items in n8n's executions. */
	function runsByEvent(): Map<string, number> {
		const runs = new Map<string, number>();
		for (const execution of n8n.finishedExecutions(WORKFLOW_ID)) {
			for (const item of nodeItems(execution.data, TRIGGER)) runs.set(String(item.eventId), (runs.get(String(item.eventId)) ?? 0) + 1);
		}
		return runs;
	}
	/** Every event in the endpoint's delivery log ran: lost = never ran, doubled = ran more than once. */
	async function count(): Promise<{ events: number; lost: number; doubled: number }> {
		const events = new Set((await deliveries()).map((d) => `evt_${d.eventId}_payment_order`));
		const runs = runsByEvent();
		return {
			events: events.size,
			lost: [...events].filter((e) => !runs.has(e)).length,
			doubled: [...runs.values()].filter((n) => n > 1).length,
		};
	}
	/** Lines of n8n's log (all starts) that say a trigger() of ours was called, from the `from`th on. */
	function activationLines(from = 0): string[] {
		const log = readFileSync(join(n8n.root, 'n8n-start.log'), 'utf8');
		return log
			.split('\n')
			.filter((l) => l.includes('Clearinghouse Trigger activated') || l.includes(`Activated trigger node "${TRIGGER}"`))
			.slice(from);
	}
	async function recoverWithTheExample(): Promise<any[]> {
		// At info level: n8n's debug lines would share stdout with the run JSON.
		const result = executeResult(
			await n8n.cli(['execute', `--id=${healthy.id!}`, '--rawOutput'], { env: { N8N_LOG_LEVEL: 'info', N8N_RUNNERS_BROKER_PORT: String(await freePort()) } }),
		);
		if (result.code !== 0 || !result.run) throw new Error(`example 6 failed\n${result.stdout.slice(-3000)}`);
		const reports = nodeItems(result.run.data, 'Recover');
		const sent = (await stage.operator.call('GET', 'outbox?channel=trigger-health')).messages as any[];
		return [reports, sent];
	}

	beforeAll(async () => {
		stage = await startSandboxStage({ allowLoopbackWebhooks: true, timeScale: 100_000, attemptTimeoutMs: 10_000 });
		// Debug: n8n's own line for each trigger() it calls ("Activated trigger node"), and ours.
		n8n = await N8nInstance.create({ env: { N8N_LOG_LEVEL: 'debug' } });
		const credential = sandboxCredential(stage.sandbox);
		await n8n.importCredential(credential);
		healthy = withOutbox(loadExample('6-keep-my-trigger-healthy.json'), stage.sandbox.mainUrl);
		await n8n.importWorkflows([
			graph(
				WORKFLOW_ID,
				'e2e: outage',
				[
					{ name: TRIGGER, type: TRIGGER_NODE, typeVersion: 2, webhookId: WEBHOOK_ID, parameters: {} },
					{ name: 'Received', type: 'n8n-nodes-base.noOp' },
				],
				[[TRIGGER, 'Received']],
				credential,
			),
			healthy,
		]);
		await n8n.start({ timeoutMs: 300_000 });
		await n8n.publish(WORKFLOW_ID);
		await n8n.waitForWebhook(WEBHOOK_PATH);
		const live = await waitFor('the endpoint', async () => {
			const endpoints = ((await stage.operator.api('GET', '/webhooks/endpoints')).endpoints as any[]).filter((e) => !e.deletedAt);
			return endpoints.length === 1 ? endpoints : undefined;
		});
		endpointId = live[0].id;
	}, 900_000);

	afterAll(() => stopAll(n8n, stage?.sandbox));

	test('30 events while n8n is down (FAILED, endpoint auto-disabled, SKIPPED): after `n8n start`, with no action by the user, each ran exactly once, the endpoint is ENABLED, a new event runs once', async () => {
		// n8n called trigger() once at publish.
		const atPublish = activationLines();
		console.log(`outage e2e: n8n log at publish:\n${atPublish.map((l) => l.slice(0, 400)).join('\n')}`);
		expect(atPublish.filter((l) => l.includes('Clearinghouse Trigger activated'))).toHaveLength(1);
		await createOrders(1, 5);
		await n8n.waitForExecutions(WORKFLOW_ID, 1, 60_000);
		await n8n.stop();

		// 15 orders: their deliveries exhaust their retries (FAILED), the 10th failure disables the endpoint.
		await createOrders(15, 10);
		await waitFor('the endpoint DISABLED', async () => (await endpoint()).status === 'DISABLED' && (await settled()));
		// 15 more while it is disabled: SKIPPED at once.
		await createOrders(15, 40);
		await waitFor('every delivery settled', settled);
		const log = await deliveries();
		const failed = log.filter((d) => d.status === 'FAILED').length;
		const skipped = log.filter((d) => d.status === 'SKIPPED').length;
		expect(failed).toBeGreaterThanOrEqual(10);
		expect(skipped).toBeGreaterThanOrEqual(1);
		expect(failed + skipped).toBe(30);
		console.log(`outage e2e: 30 events while n8n was stopped: ${failed} FAILED, ${skipped} SKIPPED`);

		const beforeStart = await stage.operator.mark();
		const linesBefore = activationLines().length;
		const startedAt = Date.now();
		await n8n.start({ timeoutMs: 300_000 });
		await n8n.waitForWebhook(WEBHOOK_PATH);
		// No action by the user from here on.
		await n8n.waitForExecutions(WORKFLOW_ID, 31, 180_000);
		await waitFor('every delivery settled', settled);
		console.log(`outage e2e: all 30 ran ${Date.now() - startedAt} ms after n8n start was called`);
		expect((await endpoint()).status).toBe('ENABLED');
		expect(await count()).toEqual({ events: 31, lost: 0, doubled: 0 });
		// Evidence: n8n called trigger() at startup (activation "init"), and the webhook phase's
		// checkExists did the recovery (the service's log: the endpoint read, re-enabled, replays).
		const atStart = activationLines(linesBefore);
		console.log(`outage e2e: n8n log at start:\n${atStart.map((l) => l.slice(0, 400)).join('\n')}`);
		expect(atStart.some((l) => l.includes('Clearinghouse Trigger activated (init)'))).toBe(true);
		const fromN8n = (await stage.operator.requests(beforeStart)).filter((r: any) => String(r.path).startsWith('/api/v1/'));
		const calls = fromN8n.map((r: any) => `${r.method} ${String(r.path).replace(/[0-9a-f-]{36}/g, ':id')}`);
		console.log(
			`outage e2e: requests from n8n after start: ${JSON.stringify(calls.reduce((m: Record<string, number>, c: string) => ({ ...m, [c]: (m[c] ?? 0) + 1 }), {}))}`,
		);
		expect(calls).toContain('PATCH /api/v1/webhooks/endpoints/:id');
		expect(calls.filter((c: string) => c === 'POST /api/v1/webhooks/deliveries/:id/replay')).toHaveLength(30);
		// The fallback of trigger() saw checkExists do it: one recovery, recorded by checkExists.
		expect(n8n.executions.staticData(WORKFLOW_ID)?.[`node:${TRIGGER}`]).toMatchObject({
			lastRecovery: { replayed: 30, eventsMissed: 30, more: false, replayErrors: 0 },
		});

		await createOrders(1, 90);
		await n8n.waitForExecutions(WORKFLOW_ID, 32, 60_000);
		expect(await count()).toEqual({ events: 32, lost: 0, doubled: 0 });
	});

	test('a restart where nothing was lost: nothing replayed, no duplicate run', async () => {
		await n8n.stop();
		const mark = await stage.operator.mark();
		await n8n.start({ timeoutMs: 300_000 });
		await n8n.waitForWebhook(WEBHOOK_PATH);
		const before = n8n.finishedExecutions(WORKFLOW_ID).length;
		await waitFor('the activation recovery', async () =>
			(await stage.operator.requests(mark)).some((r: any) => r.method === 'GET' && String(r.path).startsWith('/api/v1/webhooks/deliveries')),
		);
		// Past the fallback delay of trigger() (10 s): it must not recover a second time.
		await sleep(12_000);
		const replays = (await stage.operator.requests(mark)).filter((r: any) => /\/replay$/.test(String(r.path)));
		expect(replays).toEqual([]);
		expect(n8n.finishedExecutions(WORKFLOW_ID)).toHaveLength(before);
		expect(await count()).toEqual({ events: 32, lost: 0, doubled: 0 });
	});

	test('where n8n gives the trigger no call (the service disabled the endpoint while n8n stays up): "Keep my trigger healthy" re-enables and replays, each event runs once', async () => {
		// As if a proxy in front of n8n were down: the deliveries fail until the service disables the
		// endpoint itself (10 FAILED; Recover re-enables only such an endpoint, not one a person disabled).
		const url = (await endpoint()).url;
		await stage.operator.api('PATCH', `/webhooks/endpoints/${endpointId}`, { url: 'http://127.0.0.1:9/proxy-down' });
		await createOrders(10, 300);
		await waitFor('the endpoint disabled by the service', async () => (await endpoint()).status === 'DISABLED' || undefined);
		await createOrders(3, 200);
		await waitFor('every delivery settled', settled);
		await stage.operator.api('PATCH', `/webhooks/endpoints/${endpointId}`, { url });
		expect((await deliveries()).filter((d) => d.status === 'SKIPPED').length).toBeGreaterThanOrEqual(3);
		const [reports, sent] = await recoverWithTheExample();
		expect(reports).toEqual([
			expect.objectContaining({ endpointId, statusBefore: 'DISABLED', disabledByFailures: true, reEnabled: true, replayed: 13, more: false, replayErrors: [] }),
		]);
		expect(sent.map((m: any) => m.body)).toEqual([expect.objectContaining({ endpointId, reEnabled: true, replayed: 13 })]);
		expect((await endpoint()).status).toBe('ENABLED');
		await n8n.waitForExecutions(WORKFLOW_ID, 45, 120_000);
		await waitFor('every delivery settled', settled);
		expect(await count()).toEqual({ events: 45, lost: 0, doubled: 0 });
		// A second run finds nothing to do and reports nothing.
		const [again, sentAgain] = await recoverWithTheExample();
		expect(again).toEqual([expect.objectContaining({ endpointId, statusBefore: 'ENABLED', reEnabled: false, replayed: 0, eventsMissed: 0 })]);
		expect(sentAgain).toHaveLength(1);
	});

	test('When Received: while n8n cannot write its database it creates no run and answers non-2xx; the event is not marked seen, and the retry runs it once', async () => {
		const webhookUrl = n8n.webhookUrl(WEBHOOK_PATH);
		const before = (await count()).events;
		// Another connection holds SQLite's write lock: n8n can read (WAL) but not insert the execution.
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const { DatabaseSync } = require('node:sqlite') as typeof import('node:sqlite');
		// Wait for n8n's own writes (a start writes for a while) rather than fail on SQLITE_BUSY.
		const db = new DatabaseSync(join(n8n.userFolder, '.n8n', 'database.sqlite'), { timeout: 30_000 });
		let released = false;
		try {
			const attemptsBefore = Math.max(0, ...((await stage.operator.call('GET', 'webhooks/attempts')).attempts as any[]).map((a) => a.seq as number));
			db.exec('BEGIN IMMEDIATE');
			await createOrders(1, 120);
			const eventId = await waitFor('a refused attempt', async () => {
				const attempts = ((await stage.operator.call('GET', 'webhooks/attempts')).attempts as any[]).filter(
					(a) => a.url === webhookUrl && a.seq > attemptsBefore,
				);
				const refused = attempts.find((a) => a.statusCode === null || a.statusCode < 200 || a.statusCode > 299);
				return refused ? (refused.headers['x-service-webhook-id'] as string) : undefined;
			});
			db.exec('ROLLBACK');
			released = true;
			await waitFor('the run', async () => runsByEvent().has(eventId) || undefined);
			await waitFor('every delivery settled', settled);
			await sleep(3_000);
			const attempts = ((await stage.operator.call('GET', 'webhooks/attempts')).attempts as any[]).filter((a) => a.headers['x-service-webhook-id'] === eventId);
			// Figures for docs/trigger.md: what n8n answered, attempt by attempt.
			console.log(`outage e2e, database locked: attempts ${JSON.stringify(attempts.map((a) => a.statusCode ?? a.error))}`);
			expect(attempts.length).toBeGreaterThanOrEqual(2);
			expect(runsByEvent().get(eventId)).toBe(1);
		} finally {
			if (!released && db.isTransaction) db.exec('ROLLBACK');
			db.close();
		}
		expect(await count()).toEqual({ events: before + 1, lost: 0, doubled: 0 });
	});
});
