import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync, type WriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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
}

export interface CommandResult {
	code: number | null;
	stdout: string;
	stderr: string;
}

export interface ExecuteResult extends CommandResult {
	/** The run n8n printed (`--rawOutput`: an IRun), or undefined when it printed none. */
	run: PrintedRun | undefined;
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
	private server: ChildProcess | undefined;
	private serverLog: WriteStream | undefined;
	private readonly keep: boolean;

	private constructor(options: N8nOptions & { root: string; port: number; brokerPort: number }) {
		this.root = options.root;
		this.userFolder = join(this.root, 'user');
		this.port = options.port;
		this.brokerPort = options.brokerPort;
		this.baseUrl = `http://127.0.0.1:${this.port}`;
		this.keep = options.keep ?? process.env.E2E_KEEP === '1';
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
			// A stable key so an imported credential decrypts in every process of this instance.
			N8N_ENCRYPTION_KEY: 'e2e-clearinghouse-encryption-key',
			...options.env,
		});
		mkdirSync(this.userFolder, { recursive: true });
		if (options.installPackage !== false) installPackage(this.userFolder, options.tarball);
		this.executions = options.executionStore
			? options.executionStore(this)
			: new SqliteExecutionStore(join(this.userFolder, '.n8n', 'database.sqlite'));
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

	/** Runs `n8n <args>` to completion with this instance's environment. */
	async cli(args: string[], options: { timeoutMs?: number; env?: Record<string, string> } = {}): Promise<CommandResult> {
		const { node, n8nBin } = runtime();
		return await new Promise((resolveRun, reject) => {
			const child = spawn(node, [n8nBin, ...args], { env: { ...this.env, ...options.env }, cwd: this.root, stdio: ['ignore', 'pipe', 'pipe'] });
			let stdout = '';
			let stderr = '';
			child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
			child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
			const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 180_000);
			child.on('error', (error) => {
				clearTimeout(timer);
				reject(error);
			});
			child.on('close', (code) => {
				clearTimeout(timer);
				resolveRun({ code, stdout, stderr });
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

	/** Several workflows in one `n8n import:workflow` (each call costs about 2.5 s). */
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
		return { ...result, run: parseRunOutput(result.stdout) };
	}

	/** `n8n publish:workflow`; a running n8n picks it up at its next reconcile (about 2 s here). */
	async publish(id: string): Promise<void> {
		await this.cliOk(['publish:workflow', `--id=${id}`], 'publish');
	}

	async unpublish(id: string): Promise<void> {
		await this.cliOk(['unpublish:workflow', `--id=${id}`], 'unpublish');
	}

	get running(): boolean {
		return this.server !== undefined && this.server.exitCode === null && this.server.signalCode === null;
	}

	/** `n8n start`, resolved once /healthz/readiness answers 200. Output goes to <root>/n8n-start.log. */
	async start(options: { timeoutMs?: number; args?: string[] } = {}): Promise<void> {
		if (this.running) throw new Error('n8n is already running');
		const { node, n8nBin } = runtime();
		this.serverLog = createWriteStream(join(this.root, 'n8n-start.log'), { flags: 'a' });
		const child = spawn(node, [n8nBin, ...(options.args ?? ['start'])], {
			env: this.env,
			cwd: this.root,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		child.stdout?.pipe(this.serverLog, { end: false });
		child.stderr?.pipe(this.serverLog, { end: false });
		// The last output, for the error message when it does not come up (the folder may be gone by then).
		let tail = '';
		const keepTail = (chunk: Buffer) => (tail = (tail + chunk.toString()).slice(-6000));
		child.stdout?.on('data', keepTail);
		child.stderr?.on('data', keepTail);
		this.server = child;
		const deadline = Date.now() + (options.timeoutMs ?? 90_000);
		while (Date.now() < deadline) {
			if (!this.running) throw new Error(`n8n start exited early (code ${child.exitCode}):\n${tail}`);
			if ((await httpStatus(`${this.baseUrl}/healthz/readiness`)) === 200) return;
			await sleep(250);
		}
		await this.stop();
		throw new Error(`n8n did not become ready within ${options.timeoutMs ?? 90_000} ms:\n${tail}`);
	}

	/** SIGTERM (n8n stops in well under a second), SIGKILL if it lingers. */
	async stop(): Promise<void> {
		const child = this.server;
		this.server = undefined;
		if (child && child.exitCode === null && child.signalCode === null) {
			const exited = new Promise<void>((done) => child.once('exit', () => done()));
			child.kill('SIGTERM');
			const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
			await exited;
			clearTimeout(timer);
		}
		this.serverLog?.end();
		this.serverLog = undefined;
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
		try {
			const response = await fetch(this.webhookUrl(path), { method: 'PATCH' });
			const text = await response.text();
			return /did you mean to make a POST request/i.test(text);
		} catch {
			return false;
		}
	}

	/** Executions of a workflow (or all), from n8n's own database. */
	listExecutions(workflowId?: string): ExecutionRecord[] {
		return this.executions.list(workflowId);
	}

	/** Finished executions: stopped with their data written (the row and its data are separate writes). */
	finishedExecutions(workflowId?: string): ExecutionRecord[] {
		return this.listExecutions(workflowId).filter(
			(e) =>
				!['new', 'running', 'waiting'].includes(e.status) &&
				e.stoppedAt !== null &&
				Object.keys(e.data.resultData?.runData ?? {}).length > 0,
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

/** The run JSON block of `n8n execute --rawOutput`: from a line `{` to the next line `}`. */
export function parseRunOutput(stdout: string): PrintedRun | undefined {
	const lines = stdout.split('\n');
	const start = lines.findIndex((line) => line === '{');
	if (start < 0) return undefined;
	const end = lines.findIndex((line, index) => index > start && line === '}');
	if (end < 0) return undefined;
	return JSON.parse(lines.slice(start, end + 1).join('\n')) as PrintedRun;
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
