import { spawn, type ChildProcess, type ChildProcessByStdio } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync, type WriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';

import { SqliteExecutionStore, type ExecutionRecord, type ExecutionStore, type RunData } from './executions';
import { installPackage, nodeEnv } from './package';
import { freePort } from './ports';
import { runtime } from './runtime';

export interface N8nOptions {
	/** Folder for the instance (created); default a fresh folder under the OS temp dir. */
	root?: string;
	/** Port of `n8n start` (editor, REST, webhooks); default a free one. */
	port?: number;
	/** Port of the task broker every n8n process opens; default a free one. */
	brokerPort?: number;
	/** Install the packed package into the user folder (default true). */
	installPackage?: boolean;
	/** Tarball to install (default: build and `npm pack` this repository once per process). */
	tarball?: string;
	/**
	 * Extra environment for every n8n process, e.g. DB_TYPE=postgresdb and its DB_POSTGRESDB_*,
	 * EXECUTIONS_MODE=queue and QUEUE_BULL_REDIS_*. It overrides the defaults below.
	 */
	env?: Record<string, string>;
	/** Where executions are read from; default the SQLite file of the user folder. */
	executionStore?: (instance: N8nInstance) => ExecutionStore;
	/** Keep the folder after dispose() (also E2E_KEEP=1), for debugging. */
	keep?: boolean;
	/** A command every n8n process runs under, e.g. `ip netns exec <name>` (harness/netns.ts: n8n as in a container). */
	commandPrefix?: string[];
}

export interface CommandResult {
	code: number | null;
	/** The signal that ended it, when one did (code is then null). */
	signal?: NodeJS.Signals | null;
	stdout: string;
	stderr: string;
}

export interface ExecuteResult extends CommandResult {
	/** The run n8n printed (`--rawOutput`: an IRun), or undefined when it printed none. */
	run: PrintedRun | undefined;
	/** n8n died by this signal while exiting, after it had printed the finished run (see executeResult()). */
	crashedAtExit?: NodeJS.Signals;
}

/** What `n8n execute --rawOutput` prints: the IRun of the execution. */
export interface PrintedRun {
	data: RunData;
	mode: string;
	status: string;
	finished: boolean;
	startedAt: string;
	stoppedAt: string;
}

export interface CredentialInput {
	id: string;
	name: string;
	type: string;
	data: Record<string, unknown>;
}

/** A workflow as `n8n import:workflow` takes it. */
export interface WorkflowInput {
	id: string;
	name: string;
	nodes: Array<Record<string, unknown>>;
	connections: Record<string, unknown>;
	settings?: Record<string, unknown>;
	[key: string]: unknown;
}

/**
 * One isolated n8n: its own user folder (with the package installed as a user's install would
 * be), ports, and database. Every command runs the cached n8n with Node 24.
 */
export class N8nInstance {
	readonly root: string;
	readonly userFolder: string;
	readonly port: number;
	readonly brokerPort: number;
	readonly baseUrl: string;
	readonly env: NodeJS.ProcessEnv;
	readonly executions: ExecutionStore;
	private server: N8nProcess | undefined;
	private readonly keep: boolean;
	private readonly commandPrefix: string[];

	private constructor(options: N8nOptions & { root: string; port: number; brokerPort: number }) {
		this.root = options.root;
		this.userFolder = join(this.root, 'user');
		this.port = options.port;
		this.brokerPort = options.brokerPort;
		this.baseUrl = `http://127.0.0.1:${this.port}`;
		this.keep = options.keep ?? process.env.E2E_KEEP === '1';
		this.commandPrefix = options.commandPrefix ?? [];
		this.env = nodeEnv({
			N8N_USER_FOLDER: this.userFolder,
			N8N_DIAGNOSTICS_ENABLED: 'false',
			N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
			N8N_PERSONALIZATION_ENABLED: 'false',
			N8N_TEMPLATES_ENABLED: 'false',
			N8N_LISTEN_ADDRESS: '127.0.0.1',
			N8N_HOST: '127.0.0.1',
			N8N_PORT: String(this.port),
			N8N_RUNNERS_BROKER_PORT: String(this.brokerPort),
			N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
			N8N_WORKFLOW_PUBLICATION_RECONCILE_INTERVAL_SECONDS: '2',
			WEBHOOK_URL: `http://127.0.0.1:${this.port}/`,
			N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
			N8N_SECURE_COOKIE: 'false',
			N8N_LOG_LEVEL: 'info',
			// n8n pings its database every 2 s and answers every request 503 "Database is not ready!" after one
			// ping slower than 5 s. On a loaded test machine SQLite's SELECT 1 waits behind execution writes that
			// long (seen: a signed delivery answered 503 in examples.test.ts at load 20). The service retries a
			// 503, so nothing is lost in production; tests of the nodes should not fail on it.
			DB_PING_TIMEOUT_MS: '30000',
			// A stable key so an imported credential decrypts in every process of this instance.
			N8N_ENCRYPTION_KEY: 'e2e-clearinghouse-encryption-key',
			...options.env,
		});
		mkdirSync(this.userFolder, { recursive: true });
		if (options.installPackage !== false) installPackage(this.userFolder, options.tarball);
		this.executions = options.executionStore ? options.executionStore(this) : new SqliteExecutionStore(join(this.userFolder, '.n8n', 'database.sqlite'));
	}

	static async create(options: N8nOptions = {}): Promise<N8nInstance> {
		const root = options.root ?? mkdtempSync(join(tmpdir(), 'clearinghouse-e2e-'));
		mkdirSync(root, { recursive: true });
		const port = options.port ?? (await freePort());
		const brokerPort = options.brokerPort ?? (await freePort());
		return new N8nInstance({ ...options, root, port, brokerPort });
	}

	/** The production URL n8n serves for a webhook path (WEBHOOK_URL + "webhook/" + path). */
	webhookUrl(path: string): string {
		return `${this.env.WEBHOOK_URL}webhook/${path.replace(/^\/+/, '')}`;
	}

	/** Node with n8n's arguments, under the command prefix when there is one. */
	private spawnN8n(node: string, args: string[], env: Record<string, string> | undefined): ChildProcessByStdio<null, Readable, Readable> {
		const [command, ...rest] = [...this.commandPrefix, node, ...args];
		return spawn(command, rest, { env: { ...this.env, ...env }, cwd: this.root, stdio: ['ignore', 'pipe', 'pipe'] });
	}

	/** Runs `n8n <args>` to completion with this instance's environment. */
	async cli(args: string[], options: { timeoutMs?: number; env?: Record<string, string> } = {}): Promise<CommandResult> {
		const { node, n8nBin } = runtime();
		return await new Promise((resolveRun, reject) => {
			const child = this.spawnN8n(node, [n8nBin, ...args], options.env);
			let stdout = '';
			let stderr = '';
			child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
			child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
			const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 180_000);
			child.on('error', (error) => {
				clearTimeout(timer);
				reject(error);
			});
			child.on('close', (code, signal) => {
				clearTimeout(timer);
				resolveRun({ code, signal, stdout, stderr });
			});
		});
	}

	private async cliOk(args: string[], what: string): Promise<CommandResult> {
		const result = await this.cli(args);
		if (result.code !== 0) {
			throw new Error(`n8n ${args.join(' ')} (${what}) exited ${result.code}\n${result.stdout}\n${result.stderr}`);
		}
		return result;
	}

	private writeInput(name: string, value: unknown): string {
		const dir = join(this.root, 'input');
		mkdirSync(dir, { recursive: true });
		const file = join(dir, `${name}-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
		writeFileSync(file, JSON.stringify(value, null, 2));
		return file;
	}

	/** `n8n import:credentials`: n8n encrypts a plain-object `data` itself. */
	async importCredential(...credentials: CredentialInput[]): Promise<void> {
		await this.cliOk(['import:credentials', `--input=${this.writeInput('credentials', credentials)}`], 'import credentials');
	}

	/** `n8n import:workflow` (always imported unpublished); returns the workflow id. */
	async importWorkflow(workflow: WorkflowInput): Promise<string> {
		return (await this.importWorkflows([workflow]))[0];
	}

	/** Several workflows in one `n8n import:workflow` (each call starts n8n's CLI). */
	async importWorkflows(workflows: WorkflowInput[]): Promise<string[]> {
		const body = workflows.map((workflow) => ({ active: false, settings: { executionOrder: 'v1' }, ...workflow }));
		await this.cliOk(['import:workflow', `--input=${this.writeInput('workflows', body)}`], 'import workflows');
		return workflows.map((workflow) => workflow.id);
	}

	/**
	 * `n8n execute --id=<id> --rawOutput`. The run JSON shares stdout with logs: it is the block
	 * from a line that is exactly `{` to the next line that is exactly `}`. A failed run still
	 * prints it and exits 1, so this does not throw on a failed run.
	 */
	async execute(id: string): Promise<ExecuteResult> {
		// Its own task-broker port, so that it runs beside a started n8n or other executes.
		const result = await this.cli(['execute', `--id=${id}`, '--rawOutput'], { env: { N8N_RUNNERS_BROKER_PORT: String(await freePort()) } });
		return executeResult(result);
	}

	/** `n8n publish:workflow`; a running n8n picks it up at its next reconcile (N8N_WORKFLOW_PUBLICATION_RECONCILE_INTERVAL_SECONDS, 2 here). */
	async publish(id: string): Promise<void> {
		await this.cliOk(['publish:workflow', `--id=${id}`], 'publish');
	}

	async unpublish(id: string): Promise<void> {
		await this.cliOk(['unpublish:workflow', `--id=${id}`], 'unpublish');
	}

	get running(): boolean {
		return this.server?.running ?? false;
	}

	/**
	 * Spawns a long-running n8n process (`start`, `worker`, `webhook`, ...) with this instance's
	 * environment plus `env`; its output goes to <root>/<name>.log. For queue mode: one main, then
	 * workers and webhook processes with their own ports in `env` (QUEUE_HEALTH_CHECK_PORT, N8N_PORT).
	 */
	async spawnProcess(
		args: string[],
		options: { name?: string; env?: Record<string, string>; readyUrl?: string; timeoutMs?: number } = {},
	): Promise<N8nProcess> {
		const { node, n8nBin } = runtime();
		const name = options.name ?? `n8n-${args[0]}`;
		const log = createWriteStream(join(this.root, `${name}.log`), { flags: 'a' });
		const child = this.spawnN8n(node, [n8nBin, ...args], options.env);
		const managed = new N8nProcess(name, child, log);
		if (options.readyUrl) {
			const timeoutMs = options.timeoutMs ?? 90_000;
			const deadline = Date.now() + timeoutMs;
			for (;;) {
				if (!managed.running) throw new Error(`n8n ${args.join(' ')} exited early (code ${child.exitCode}):\n${managed.tail}`);
				if ((await httpStatus(options.readyUrl)) === 200) break;
				if (Date.now() > deadline) {
					await managed.stop();
					throw new Error(`n8n ${args.join(' ')} not ready at ${options.readyUrl} within ${timeoutMs} ms:\n${managed.tail}`);
				}
				await sleep(250);
			}
		}
		return managed;
	}

	/** `n8n start`, resolved once /healthz/readiness answers 200. Output goes to <root>/n8n-start.log. */
	async start(options: { timeoutMs?: number; args?: string[] } = {}): Promise<void> {
		if (this.running) throw new Error('n8n is already running');
		this.server = await this.spawnProcess(options.args ?? ['start'], {
			name: 'n8n-start',
			readyUrl: `${this.baseUrl}/healthz/readiness`,
			timeoutMs: options.timeoutMs,
		});
	}

	/** Stops what start() started (SIGTERM; n8n stops in well under a second). */
	async stop(): Promise<void> {
		const server = this.server;
		this.server = undefined;
		await server?.stop();
	}

	/**
	 * Waits until a production webhook path is live: n8n answers a PATCH to a registered POST
	 * webhook with "did you mean to make a POST request?" (OPTIONS answers 204 for any path).
	 */
	async waitForWebhook(path: string, live = true, timeoutMs = 30_000): Promise<void> {
		const deadline = Date.now() + timeoutMs;
		while (Date.now() < deadline) {
			if ((await this.webhookLive(path)) === live) return;
			await sleep(250);
		}
		throw new Error(`webhook ${path} did not become ${live ? 'live' : 'gone'} within ${timeoutMs} ms`);
	}

	async webhookLive(path: string): Promise<boolean> {
		return await webhookLiveAt(this.webhookUrl(path));
	}

	/** Executions of a workflow (or all), from n8n's own database. */
	listExecutions(workflowId?: string): ExecutionRecord[] {
		return this.executions.list(workflowId);
	}

	/** Finished executions: stopped with their data written (the row and its data are separate writes). */
	finishedExecutions(workflowId?: string): ExecutionRecord[] {
		return this.listExecutions(workflowId).filter(
			(e) => !['new', 'running', 'waiting'].includes(e.status) && e.stoppedAt !== null && Object.keys(e.data.resultData?.runData ?? {}).length > 0,
		);
	}

	/** Waits until a workflow has at least `count` finished executions; returns them all. */
	async waitForExecutions(workflowId: string, count: number, timeoutMs = 30_000): Promise<ExecutionRecord[]> {
		const deadline = Date.now() + timeoutMs;
		let seen: ExecutionRecord[] = [];
		while (Date.now() < deadline) {
			seen = this.finishedExecutions(workflowId);
			if (seen.length >= count) return seen;
			await sleep(250);
		}
		throw new Error(`workflow ${workflowId}: ${seen.length} finished executions after ${timeoutMs} ms, wanted ${count}`);
	}

	/** Stops n8n and removes the folder (unless kept). */
	async dispose(): Promise<void> {
		await this.stop();
		if (!this.keep) rmSync(this.root, { recursive: true, force: true });
	}
}

/** A long-running n8n process: its output goes to a log file, the last of it is kept for errors. */
export class N8nProcess {
	tail = '';

	constructor(
		readonly name: string,
		readonly child: ChildProcess,
		private readonly log: WriteStream,
	) {
		const keep = (chunk: Buffer) => (this.tail = (this.tail + chunk.toString()).slice(-6000));
		for (const stream of [child.stdout, child.stderr]) {
			stream?.pipe(log, { end: false });
			stream?.on('data', keep);
		}
	}

	get running(): boolean {
		return this.child.exitCode === null && this.child.signalCode === null;
	}

	/** SIGTERM (or `signal`), SIGKILL if it lingers past 15 s. */
	async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
		if (this.running) {
			const exited = new Promise<void>((done) => this.child.once('exit', () => done()));
			this.child.kill(signal);
			const timer = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
			await exited;
			clearTimeout(timer);
		}
		this.log.end();
	}
}

/**
 * What an `n8n execute` ended with. n8n 2.40.7's `n8n execute` sometimes dies with SIGSEGV while
 * shutting down, after the run finished, was stored and was printed (1 of 15 calls on a quiet
 * machine with no community package installed, 2026-11-26). The run's outcome is then what n8n
 * printed: the exit code is the one n8n gives that outcome (0 success, 1 failed run), and the crash
 * stays on record. Running the workflow again instead could pay twice.
 */
export function executeResult(result: CommandResult): ExecuteResult {
	const run = parseRunOutput(result.stdout);
	if (result.code === null && result.signal === 'SIGSEGV') {
		const failed = result.stdout.includes('Execution was NOT successful');
		if (failed || (run?.finished && run.status === 'success')) return { ...result, code: failed ? 1 : 0, run, crashedAtExit: result.signal };
	}
	return { ...result, run };
}

/** The run JSON block of `n8n execute --rawOutput`: from a line `{` to the next line `}`. */
function parseRunOutput(stdout: string): PrintedRun | undefined {
	const lines = stdout.split('\n');
	const start = lines.findIndex((line) => line === '{');
	if (start < 0) return undefined;
	const end = lines.findIndex((line, index) => index > start && line === '}');
	if (end < 0) return undefined;
	return JSON.parse(lines.slice(start, end + 1).join('\n')) as PrintedRun;
}

/** Whether a production webhook URL is registered: n8n answers a PATCH to a POST webhook "did you mean to make a POST request?". */
export async function webhookLiveAt(url: string): Promise<boolean> {
	try {
		const response = await fetch(url, { method: 'PATCH' });
		return /did you mean to make a POST request/i.test(await response.text());
	} catch {
		return false;
	}
}

async function httpStatus(url: string): Promise<number> {
	try {
		const response = await fetch(url);
		await response.arrayBuffer();
		return response.status;
	} catch {
		return 0;
	}
}

export const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));
