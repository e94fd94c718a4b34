/**
 * What "Confirm Events With the API" costs per delivery: the trigger's webhook() in n8n-core's own
 * WebhookContext (harness/inProcessTrigger.ts, as the node tests run it), with confirmation on and off, on the same kind of
 * signed events about real sandbox orders, interleaved. The sandbox runs in this process on
 * loopback, so the figure is the node's work plus one local HTTP round trip, not a network's.
 *
 *   source scripts/runtime.sh && TS_NODE_PREFER_TS_EXTS=true node -r ts-node/register/transpile-only bench/confirmation.ts [deliveries]
 * (PREFER_TS_EXTS: Node would otherwise resolve `ClearinghouseTrigger.node` to the codex `.node.json`.)
 */
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';

import { sealSecret } from '../nodes/shared/secretBox';
import { signatureHeader } from '../nodes/shared/signature';
import { deliver, N8nStaticData, NODE_ID, STATIC_KEY, type SandboxAccess, type TriggerUnderTest } from '../harness/inProcessTrigger';
import { startSandbox } from '../harness/sandbox';
import { SandboxClient } from '../harness/sandboxClient';

const SECRET = `whsec_${'5a'.repeat(32)}`;

function triggerFor(sb: SandboxAccess, name: string, confirmWithApi: boolean): TriggerUnderTest {
	const workflowId = `bench-confirm-${name}-${Date.now()}`;
	const staticData = new N8nStaticData();
	staticData.saved[STATIC_KEY] = {
		endpointId: 'not-used',
		secretBox: sealSecret(SECRET, { apiKey: sb.apiKey, workflowId, nodeId: NODE_ID }),
	};
	return { parameters: { options: { confirmWithApi } }, workflowId, staticData };
}

function signedEvent(order: Record<string, unknown>, tag: string): { headers: Record<string, string>; body: Buffer } {
	const id = `evt_${tag}_payment_order`;
	const body = JSON.stringify({ id, type: 'payment_order', created: new Date().toISOString(), accountId: 'bench', data: { payment_order: order } });
	const t = Math.floor(Date.now() / 1000);
	return {
		headers: { 'content-type': 'application/json', 'x-service-webhook-signature': signatureHeader([SECRET], t, body), 'x-service-webhook-delivery-id': tag },
		body: Buffer.from(body),
	};
}

const quantile = (values: number[], q: number) => {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};

async function main(): Promise<void> {
	const count = Number(process.argv[2] ?? 300);
	const warmup = 30;
	// The trigger node tests' sandbox settings (test/nodes/trigger/support.ts).
	const sb = await startSandbox({ allowLoopbackWebhooks: true, timeScale: 50, attemptTimeoutMs: 5_000 });
	const client = new SandboxClient(sb);
	try {
		await client.call('POST', 'payment-orders/bulk', { count: count + warmup });
		const orders: Array<Record<string, unknown>> = [];
		for (let offset = 0; orders.length < count + warmup; offset += 1000) {
			const page = await client.api('GET', `/payment-orders?status=AWAITING_FUNDS&limit=1000&offset=${offset}`);
			orders.push(...(page.paymentOrders as Array<Record<string, unknown>>));
			if (!page.hasMore) break;
		}
		const on = triggerFor(sb, 'on', true);
		const off = triggerFor(sb, 'off', false);
		const times: Record<'on' | 'off', number[]> = { on: [], off: [] };
		const load = loadavg();
		for (let i = 0; i < count + warmup; i++) {
			const order = orders[i];
			// Alternate which goes first, so neither always runs on a warmer cache.
			const pair: Array<['on' | 'off', TriggerUnderTest]> =
				i % 2 === 0
					? [
							['on', on],
							['off', off],
						]
					: [
							['off', off],
							['on', on],
						];
			for (const [name, t] of pair) {
				const event = signedEvent(order, `${name}${i}`);
				const started = performance.now();
				const outcome = await deliver(sb, t, event.headers, event.body);
				const elapsed = performance.now() - started;
				if (outcome.items?.length !== 1) throw new Error(`${name} ${i}: not emitted: ${outcome.status} ${JSON.stringify(outcome.body)}`);
				if (i >= warmup) times[name].push(elapsed);
			}
		}
		const line = (name: 'on' | 'off') =>
			`${name.padEnd(3)} median ${quantile(times[name], 0.5).toFixed(2)} ms, p95 ${quantile(times[name], 0.95).toFixed(2)} ms`;
		const deltas = times.on.map((v, i) => v - times.off[i]);
		process.stdout.write(
			[
				`confirmation cost per delivery, ${count} deliveries each (after ${warmup} warm-up), in-process sandbox on loopback`,
				`machine: ${cpus().length} cores, load average ${load.map((l) => l.toFixed(2)).join(' ')} (1/5/15 min) at start`,
				line('off'),
				line('on'),
				`paired difference (on − off): median ${quantile(deltas, 0.5).toFixed(2)} ms, p95 ${quantile(deltas, 0.95).toFixed(2)} ms`,
				'',
			].join('\n'),
		);
	} finally {
		await sb.close();
	}
}

main().catch((error) => {
	process.stderr.write(`${error?.stack ?? error}\n`);
	process.exit(1);
});
