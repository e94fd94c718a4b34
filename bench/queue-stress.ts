/**
 * Queue-mode stress: main, 2 workers, 2 webhook processes behind nginx, PostgreSQL,
 * Redis. For each deployment (routing: nginx hash on X-Service-Webhook-Id or round robin;
 * acknowledgement: When Received or When the Workflow Has Finished) it delivers QUEUE_STRESS_EVENTS
 * (default 200) signed events, 30% of them delivered again, 10% failing their business step on the
 * first attempt, and counts lost and doubled business steps in the receiver and in n8n's database.
 * Writes bench/results/queue-stress.json. Run: bash bench/queue-stress.sh
 */
import { randomUUID } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { freePort } from '../harness/ports';
import { repoRoot } from '../harness/runtime';
import { sandboxCredential, startSandbox } from '../harness/sandbox';
import { QueueCluster } from '../harness/queue/cluster';
import { BusinessReceiver, runStress, stressSecret, stressWorkflow, type StressFigures } from '../harness/queue/stress';

const EVENTS = Number(process.env.QUEUE_STRESS_EVENTS ?? 200);
const ONLY = (process.env.QUEUE_STRESS_DEPLOYMENTS ?? '').split(',').filter(Boolean);

async function main(): Promise<void> {
	const sandbox = await startSandbox({ allowLoopbackWebhooks: true, timeScale: 1 });
	const cluster = await QueueCluster.start();
	const receiver = await new BusinessReceiver().start(await freePort());
	const results: Array<{ deployment: string; at: string; routing: string; acknowledge: string; load: number[]; figures: StressFigures; perBackend: number[] }> =
		[];
	try {
		const credential = sandboxCredential(sandbox);
		await cluster.main.importCredential(credential);
		const hooks: Record<string, string> = {};
		for (const acknowledge of ['whenReceived', 'whenFinished'] as const) {
			const id = `queueStress${acknowledge === 'whenFinished' ? 'Fin' : 'Rec'}01`;
			hooks[acknowledge] = randomUUID();
			await cluster.main.importWorkflow(stressWorkflow(id, hooks[acknowledge], acknowledge, receiver.url, { id: credential.id, name: credential.name }));
			await cluster.main.publish(id);
			await cluster.waitForWebhook(`${hooks[acknowledge]}/webhook`);
			// create() writes the secret on the main process; wait for it in the database.
			const deadline = Date.now() + 120_000;
			while (!JSON.stringify(cluster.store.staticData(id) ?? {}).includes('secretBox')) {
				if (Date.now() > deadline) throw new Error(`no endpoint secret for ${id}`);
				await new Promise((done) => setTimeout(done, 500));
			}
		}
		const deployments = [
			// The recommended deployment first, then today's default, then the two halves.
			{ routing: 'hash', acknowledge: 'whenFinished' },
			{ routing: 'roundRobin', acknowledge: 'whenReceived' },
			{ routing: 'hash', acknowledge: 'whenReceived' },
			{ routing: 'roundRobin', acknowledge: 'whenFinished' },
		] as const;
		for (const d of deployments) {
			const name = `${d.routing}/${d.acknowledge}`;
			if (ONLY.length && !ONLY.includes(name)) continue;
			const id = `queueStress${d.acknowledge === 'whenFinished' ? 'Fin' : 'Rec'}01`;
			const base = d.routing === 'hash' ? cluster.nginx.url : cluster.nginx.roundRobinUrl;
			const from = cluster.nginx.log().length;
			const load = loadavg().map((l) => Number(l.toFixed(2)));
			const figures = await runStress(cluster, id, receiver, {
				url: `${base}/webhook/${hooks[d.acknowledge]}/webhook`,
				secret: stressSecret(cluster, id, sandbox.apiKey),
				events: EVENTS,
				repeatShare: 0.3,
				failShare: 0.1,
				concurrency: 20,
			});
			const routed = cluster.nginx
				.log()
				.slice(from)
				.filter((r) => r.path.includes(hooks[d.acknowledge]));
			const perBackend = [0, 1].map((b) => routed.filter((r) => r.backend === b).length);
			results.push({ deployment: name, at: new Date().toISOString(), routing: d.routing, acknowledge: d.acknowledge, load, figures, perBackend });
			write(results);
			console.log(
				`[queue stress] ${name}: lost ${figures.lost} (n8n ${figures.lostInN8n}), doubled ${figures.doubled} (n8n ${figures.doubledInN8n}) of ${figures.events}; ${figures.attempts} attempts ${JSON.stringify(figures.answers)}, ${figures.executions} executions, ${figures.seconds} s, load ${load.join(' ')}`,
			);
		}
	} finally {
		await receiver.close();
		await cluster.dispose();
		await sandbox.close();
	}
	console.log(`written bench/results/queue-stress.json`);
}

/**
 * After every deployment, so a run cut short keeps what it measured. A run of some deployments only
 * (QUEUE_STRESS_DEPLOYMENTS) keeps the file's other deployments, each with the time it was measured.
 */
function write(results: Array<{ deployment: string }>): void {
	const out = join(repoRoot, 'bench', 'results');
	const file = join(out, 'queue-stress.json');
	mkdirSync(out, { recursive: true });
	let kept: Array<{ deployment: string; at?: string }> = [];
	if (ONLY.length && existsSync(file)) {
		const previous = JSON.parse(readFileSync(file, 'utf8')) as { at: string; events: number; results: Array<{ deployment: string; at?: string }> };
		if (previous.events === EVENTS)
			kept = previous.results.filter((r) => !results.some((n) => n.deployment === r.deployment)).map((r) => ({ ...r, at: r.at ?? previous.at }));
	}
	const order = ['hash/whenFinished', 'roundRobin/whenReceived', 'hash/whenReceived', 'roundRobin/whenFinished'];
	const all = [...kept, ...results].sort((a, b) => order.indexOf(a.deployment) - order.indexOf(b.deployment));
	const report = { at: new Date().toISOString(), cores: cpus().length, events: EVENTS, repeatShare: 0.3, failShare: 0.1, concurrency: 20, results: all };
	writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
