import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { N8nInstance, sleep, webhookLiveAt, type N8nProcess } from '../n8nProcess';
import { freePort } from '../ports';
import { repoRoot } from '../runtime';
import { PostgresExecutionStore } from './postgres';
import { LossyFront, NginxProxy } from './proxy';

/** PostgreSQL and Redis on loopback, in a folder of their own (scripts/services.sh). */
export class Services {
	private constructor(
		readonly dir: string,
		readonly pgPort: number,
		readonly redisPort: number,
	) {}

	static async start(dir: string): Promise<Services> {
		const installed =
			spawnSync('bash', [
				'-c',
				'ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && command -v redis-server >/dev/null && { command -v nginx || [ -x /usr/sbin/nginx ]; } >/dev/null',
			]).status === 0;
		if (!installed) throw new Error('PostgreSQL, Redis or nginx is not installed: run `bash scripts/services.sh install` (root, apt) first');
		const pgPort = await freePort();
		const redisPort = await freePort();
		const services = new Services(dir, pgPort, redisPort);
		execFileSync('bash', [join(repoRoot, 'scripts', 'services.sh'), 'start', dir, String(pgPort), String(redisPort)], {
			stdio: ['ignore', 'ignore', 'pipe'],
			timeout: 120_000,
		});
		return services;
	}

	stop(): void {
		execFileSync('bash', [join(repoRoot, 'scripts', 'services.sh'), 'stop', this.dir], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 60_000 });
	}
}

/**
 * One `n8n worker` or `n8n webhook` process over an N8nInstance (its own user folder with the
 * package installed, ports and environment), spawned through the instance's `spawnProcess`.
 * Unlike `N8nInstance.start()`, it can be killed (SIGKILL) and started again, appending to the
 * same log, whose whole text tells which process ran an execution.
 */
export class QueueProcess {
	private process: N8nProcess | undefined;

	constructor(
		readonly name: string,
		readonly instance: N8nInstance,
		readonly command: 'worker' | 'webhook',
		readonly args: string[] = [],
		/** Extra environment of this process only (e.g. its own V8 inspector port); a restart takes a changed one. */
		public env: Record<string, string> = {},
	) {}

	private get logName(): string {
		return `n8n-${this.command}`;
	}

	get running(): boolean {
		return this.process?.running ?? false;
	}

	/** Starts it and waits until /healthz/readiness (the worker's health server, or the webhook server) answers 200. */
	async start(timeoutMs = 240_000): Promise<void> {
		this.process = await this.instance.spawnProcess([this.command, ...this.args], {
			name: this.logName,
			env: this.env,
			readyUrl: `http://127.0.0.1:${this.instance.port}/healthz/readiness`,
			timeoutMs,
		});
	}

	/** Sends a signal and waits for the exit (SIGKILL after 15 s of SIGTERM). */
	async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
		await this.process?.stop(signal);
	}

	logText(): string {
		try {
			return readFileSync(join(this.instance.root, `${this.logName}.log`), 'utf8');
		} catch {
			return '';
		}
	}

	logTail(chars = 6000): string {
		return this.logText().slice(-chars);
	}
}

export interface ClusterOptions {
	workers?: number;
	webhooks?: number;
	/** Extra environment for every process. */
	env?: Record<string, string>;
	/** Arguments of `n8n worker`, e.g. ['--concurrency=5']. */
	workerArgs?: string[];
	/** Extra environment of one worker or webhook process (by name: worker1, webhook2, ...). */
	processEnv?: (name: string) => Record<string, string>;
}

/**
 * n8n in queue mode, all on loopback: PostgreSQL and Redis, the main process (`n8n start`, which
 * publishes triggers and enqueues executions but serves no production webhooks), workers that
 * execute, and webhook processes behind nginx (hash on X-Service-Webhook-Id, the shipped
 * examples/queue/nginx.conf), reached through a front door that can lose answers (WEBHOOK_URL).
 * Every process has its own user folder and ports: they share nothing but the database, Redis and
 * the encryption key.
 */
export class QueueCluster {
	main!: N8nInstance;
	/** For one-off CLI commands (`n8n execute` runs in one process, regular mode) beside the running main. */
	cli!: N8nInstance;
	workers: QueueProcess[] = [];
	webhooks: QueueProcess[] = [];
	/** nginx in front of the webhook processes, with the shipped config (hash on X-Service-Webhook-Id). */
	nginx!: NginxProxy;
	/** The public address (WEBHOOK_URL), a pass-through to nginx that can lose answers. */
	proxy!: LossyFront;
	services: Services | undefined;
	store!: PostgresExecutionStore;
	readonly root: string;
	readonly env: Record<string, string> = {};

	private constructor(root: string) {
		this.root = root;
	}

	static async start(options: ClusterOptions = {}): Promise<QueueCluster> {
		const root = mkdtempSync(join(tmpdir(), 'clearinghouse-queue-'));
		// Under root, PostgreSQL runs as `postgres` (services.sh), which must reach its folder in here.
		chmodSync(root, 0o755);
		const cluster = new QueueCluster(root);
		try {
			await cluster.boot(options);
		} catch (error) {
			await cluster.dispose();
			throw error;
		}
		return cluster;
	}

	private async boot(options: ClusterOptions): Promise<void> {
		this.services = await Services.start(join(this.root, 'services'));
		this.store = new PostgresExecutionStore(this.services.pgPort);
		const frontPort = await freePort();
		Object.assign(this.env, {
			EXECUTIONS_MODE: 'queue',
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: '127.0.0.1',
			DB_POSTGRESDB_PORT: String(this.services.pgPort),
			DB_POSTGRESDB_DATABASE: 'n8n',
			DB_POSTGRESDB_USER: 'n8n',
			DB_POSTGRESDB_PASSWORD: '',
			QUEUE_BULL_REDIS_HOST: '127.0.0.1',
			QUEUE_BULL_REDIS_PORT: String(this.services.redisPort),
			// One key for every process: credentials and the instance id derive from it.
			N8N_ENCRYPTION_KEY: 'queue-clearinghouse-encryption-key',
			// The public webhook address is the entry point in front of the webhook processes.
			WEBHOOK_URL: `http://127.0.0.1:${frontPort}/`,
			// A killed worker's job is declared stalled sooner than with the defaults (60 s lock). Not
			// lower: with a 6 s lock at a load of 27, batch runs ended 'error' and 2 of 40 stress events
			// ran their business step twice, most likely because workers missed their lock renewals and
			// n8n failed running jobs as stalled (answered 500, so the service retried).
			QUEUE_WORKER_LOCK_DURATION: '30000',
			QUEUE_WORKER_LOCK_RENEW_TIME: '5000',
			QUEUE_WORKER_STALLED_INTERVAL: '10000',
			N8N_RUNNERS_MODE: 'internal',
			...options.env,
		});
		const shared = { executionStore: () => this.store };
		this.main = await N8nInstance.create({
			...shared,
			root: join(this.root, 'main'),
			env: {
				...this.env,
				// Production webhooks only on the webhook processes, as in a real split deployment.
				N8N_DISABLE_PRODUCTION_MAIN_PROCESS: 'true',
				// N8N_EXECUTIONS_QUEUE_RECOVERY_INTERVAL stays at its default (180 min). Lowered, its check
				// races with new executions (it reads the 'new' rows, then the queue's jobs, and crashes a
				// row whose job was not queued yet), and it never caught a killed worker's execution here:
				// that job stays 'active' until the surviving worker's stalled-job check fails it.
			},
		});
		// Generous: a fresh PostgreSQL database is migrated first, and the machine may be loaded.
		await this.main.start({ timeoutMs: 300_000 });
		// Own task-broker port: `n8n execute` opens one, and the main's is taken.
		this.cli = await N8nInstance.create({ ...shared, root: join(this.root, 'cli'), env: this.env });
		for (let i = 1; i <= (options.workers ?? 2); i++) {
			const port = await freePort();
			const instance = await N8nInstance.create({
				...shared,
				root: join(this.root, `worker${i}`),
				port,
				env: { ...this.env, QUEUE_HEALTH_CHECK_ACTIVE: 'true', QUEUE_HEALTH_CHECK_PORT: String(port), N8N_WORKER_SERVER_ADDRESS: '127.0.0.1' },
			});
			this.workers.push(new QueueProcess(`worker${i}`, instance, 'worker', options.workerArgs, options.processEnv?.(`worker${i}`)));
		}
		for (let i = 1; i <= (options.webhooks ?? 2); i++) {
			const instance = await N8nInstance.create({ ...shared, root: join(this.root, `webhook${i}`), env: this.env });
			this.webhooks.push(new QueueProcess(`webhook${i}`, instance, 'webhook', [], options.processEnv?.(`webhook${i}`)));
		}
		this.nginx = NginxProxy.start(
			this.services.dir,
			await freePort(),
			await freePort(),
			this.webhooks.map((w) => w.instance.port),
		);
		this.proxy = await new LossyFront(this.nginx).start(frontPort);
		// Two at a time: the machine has two cores.
		const all = [...this.workers, ...this.webhooks];
		for (let i = 0; i < all.length; i += 2) await Promise.all(all.slice(i, i + 2).map((p) => p.start()));
	}

	/** The public production URL of a webhook path (through the front door and nginx). */
	webhookUrl(path: string): string {
		return `${this.proxy.url}/webhook/${path.replace(/^\/+/, '')}`;
	}

	/** The same path on one webhook process directly. */
	webhookUrlOn(process: QueueProcess, path: string): string {
		return `http://127.0.0.1:${process.instance.port}/webhook/${path.replace(/^\/+/, '')}`;
	}

	/** Waits until every webhook process serves the path (a PATCH is answered "did you mean POST"). */
	async waitForWebhook(path: string, live = true, timeoutMs = 180_000): Promise<void> {
		const deadline = Date.now() + timeoutMs;
		while (Date.now() < deadline) {
			const states = await Promise.all(this.webhooks.map((w) => webhookLiveAt(this.webhookUrlOn(w, path))));
			if (states.every((s) => s === live)) return;
			await sleep(300);
		}
		throw new Error(`webhook ${path} not ${live ? 'live' : 'gone'} on every webhook process within ${timeoutMs} ms`);
	}

	/** Which worker ran an execution, from the workers' logs ("Worker started execution N"). */
	workerOf(executionId: number | string): QueueProcess | undefined {
		const pattern = new RegExp(`Worker started execution ${executionId} \\(`);
		return this.workers.find((w) => pattern.test(w.logText()));
	}

	/** Stops every process it started (also after a failed boot), then the services; removes the folder. */
	async dispose(): Promise<void> {
		const errors: unknown[] = [];
		const attempt = async (what: () => Promise<void> | void) => {
			try {
				await what();
			} catch (error) {
				errors.push(error);
			}
		};
		await Promise.all([...this.webhooks, ...this.workers].map((p) => attempt(() => p.stop())));
		if (this.main) await attempt(() => this.main.stop());
		if (this.proxy) await attempt(() => this.proxy.close());
		// services.sh stop also stops nginx (its pid file is in the same folder).
		if (this.services) await attempt(() => this.services!.stop());
		if (process.env.E2E_KEEP !== '1') rmSync(this.root, { recursive: true, force: true });
		if (errors.length) throw errors[0];
	}
}
