/**
 * Queue-mode throughput: batch creation of payment orders (business keys, concurrency 5) through a
 * production webhook, with two workers against one (orders/s, median of 3 rounds after a warm-up).
 * Moved out of the queue suite, where it asserted nothing but "> 0". Writes
 * bench/results/queue-throughput.json. Run: QUEUE_BENCH=throughput bash bench/queue-stress.sh
 */
import { randomUUID } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { repoRoot } from '../harness/runtime';
import { sleep } from '../harness/n8nProcess';
import { sandboxCredential, startSandbox } from '../harness/sandbox';
import { createOrdersNode, graph } from '../harness/workflows';
import { QueueCluster } from '../harness/queue/cluster';
import { SandboxClient, walletOf } from '../harness/sandboxClient';

const EXECUTIONS = 8;
const PER_EXECUTION = 25;
const ROUNDS = 3;
const WORKFLOW = 'queueBenchBatch1';
const PATH = `queue-bench-${randomUUID().slice(0, 8)}`;

async function main(): Promise<void> {
	const sandbox = await startSandbox({ allowLoopbackWebhooks: true, timeScale: 1 });
	const [alice, bob] = (await new SandboxClient(sandbox).state()).users;
	const cluster = await QueueCluster.start();
	try {
		const credential = sandboxCredential(sandbox);
		await cluster.main.importCredential(credential);
		const createOrders = createOrdersNode(alice.id, walletOf(bob, 'ethereum'), 5);
		await cluster.main.importWorkflow(
			graph(
				WORKFLOW,
				'queue bench: batch of payment orders',
				[
					{
						name: 'Webhook',
						type: 'n8n-nodes-base.webhook',
						typeVersion: 2,
						webhookId: randomUUID(),
						parameters: { httpMethod: 'POST', path: PATH, responseMode: 'onReceived', options: {} },
					},
					{ name: 'Orders', type: 'n8n-nodes-base.splitOut', parameters: { fieldToSplitOut: 'body.orders', include: 'noOtherFields', options: {} } },
					createOrders,
				],
				[
					['Webhook', 'Orders'],
					['Orders', 'Create orders'],
				],
				{ id: credential.id, name: credential.name },
			),
		);
		await cluster.main.publish(WORKFLOW);
		await cluster.waitForWebhook(PATH);

		const expiresAt = new Date(Date.now() + 6 * 3600_000).toISOString();
		const measure = async (label: string) => {
			const before = Math.max(0, ...cluster.store.list().map((e) => e.id));
			const started = Date.now();
			const statuses = await Promise.all(
				Array.from({ length: EXECUTIONS }, async (_, e) => {
					const orders = Array.from({ length: PER_EXECUTION }, (_, i) => ({
						key: `${label}-${e}-${i}`,
						memo: `${label}-${e}-${i}`,
						amountUsd: 1 + (i % 7) + 0.25,
						expiresAt,
					}));
					const response = await fetch(cluster.webhookUrl(PATH), {
						method: 'POST',
						headers: { 'content-type': 'application/json' },
						body: JSON.stringify({ orders }),
					});
					await response.text();
					return response.status;
				}),
			);
			if (statuses.some((s) => s !== 200)) throw new Error(`${label}: webhook answers ${statuses.join(',')}`);
			const deadline = Date.now() + 300_000;
			let done = cluster.main.finishedExecutions(WORKFLOW).filter((e) => e.id > before);
			while (done.length < EXECUTIONS) {
				if (Date.now() > deadline) throw new Error(`${label}: ${done.length} of ${EXECUTIONS} executions finished in 300 s`);
				await sleep(300);
				done = cluster.main.finishedExecutions(WORKFLOW).filter((e) => e.id > before);
			}
			if (done.some((e) => e.status !== 'success')) throw new Error(`${label}: executions ended ${done.map((e) => e.status).join(',')}`);
			const ended = Math.max(...done.map((e) => Date.parse(e.stoppedAt!)));
			return { rate: (EXECUTIONS * PER_EXECUTION) / ((ended - started) / 1000), workers: done.map((e) => cluster.workerOf(e.id)?.name ?? '?') };
		};
		const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

		await measure('warmup');
		const load = loadavg().map((l) => Number(l.toFixed(2)));
		const two = [];
		for (let i = 0; i < ROUNDS; i++) two.push(await measure(`two${i}`));
		const [, second] = cluster.workers;
		await second.stop();
		const one = [];
		try {
			for (let i = 0; i < ROUNDS; i++) one.push(await measure(`one${i}`));
		} finally {
			await second.start();
		}
		const figures = {
			at: new Date().toISOString(),
			cores: cpus().length,
			load,
			ordersPerRun: EXECUTIONS * PER_EXECUTION,
			oneWorker: Number(median(one.map((r) => r.rate)).toFixed(1)),
			twoWorkers: Number(median(two.map((r) => r.rate)).toFixed(1)),
			runsOneWorker: one.map((r) => Number(r.rate.toFixed(1))),
			runsTwoWorkers: two.map((r) => Number(r.rate.toFixed(1))),
			executionsPerWorkerWithTwo: two.map((r) => r.workers.join(',')),
			executionsPerWorkerWithOne: one.map((r) => r.workers.join(',')),
		};
		const out = join(repoRoot, 'bench', 'results');
		mkdirSync(out, { recursive: true });
		writeFileSync(join(out, 'queue-throughput.json'), `${JSON.stringify(figures, null, 2)}\n`);
		console.log(
			`[queue throughput] orders/s, median of ${ROUNDS}: 1 worker ${figures.oneWorker}, 2 workers ${figures.twoWorkers}; written bench/results/queue-throughput.json`,
		);
	} finally {
		await cluster.dispose();
		await sandbox.close();
	}
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
