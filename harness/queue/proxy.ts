import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { join } from 'node:path';

import { closeServer, listenLocal } from '../receiver';
import { repoRoot } from '../runtime';

/** One request nginx passed to a webhook process (its access log, one JSON line each). */
export interface RoutedRequest {
	/** Index of the webhook process it went to (by port), -1 when none answered. */
	backend: number;
	/** Which nginx server: 'hash' (the shipped config) or 'roundRobin'. */
	via: 'hash' | 'roundRobin';
	method: string;
	path: string;
	status: number;
	eventId?: string;
	/** When nginx received the request and when it finished it (ms since the epoch, from its log). */
	startedMs: number;
	endedMs: number;
}

/**
 * nginx from Debian's packages (scripts/services.sh proxy) in front of the webhook processes, with
 * the shipped examples/queue/nginx.conf: hash on X-Service-Webhook-Id on `url`, and a plain
 * round-robin upstream over the same processes on `roundRobinUrl` for comparison.
 */
export class NginxProxy {
	private constructor(
		readonly dir: string,
		readonly port: number,
		readonly roundRobinPort: number,
		readonly backends: number[],
	) {}

	get url(): string {
		return `http://127.0.0.1:${this.port}`;
	}

	get roundRobinUrl(): string {
		return `http://127.0.0.1:${this.roundRobinPort}`;
	}

	static start(dir: string, port: number, roundRobinPort: number, backends: number[]): NginxProxy {
		execFileSync('bash', [join(repoRoot, 'scripts', 'services.sh'), 'proxy', dir, String(port), String(roundRobinPort), ...backends.map(String)], {
			stdio: ['ignore', 'ignore', 'pipe'],
			timeout: 60_000,
		});
		return new NginxProxy(dir, port, roundRobinPort, backends);
	}

	/** Every request so far, in the order nginx finished them. */
	log(): RoutedRequest[] {
		let text = '';
		try {
			text = readFileSync(join(this.dir, 'nginx-access.log'), 'utf8');
		} catch {
			return [];
		}
		return text
			.split('\n')
			.filter((line) => line.startsWith('{'))
			.map((line) => JSON.parse(line) as Record<string, string>)
			.map((r) => ({
				// With a retry to another server nginx lists both ("a, b"): the last one answered.
				backend: this.backendOf(r.upstream),
				via: Number(r.port) === this.port ? 'hash' : 'roundRobin',
				method: r.method,
				path: r.uri,
				status: Number(r.status),
				eventId: r.eventId || undefined,
				startedMs: Math.round((Number(r.msec) - Number(r.requestTime ?? 0)) * 1000),
				endedMs: Math.round(Number(r.msec) * 1000),
			}));
	}

	backendOf(upstream: string | undefined): number {
		const last = String(upstream ?? '')
			.split(',')
			.pop()!
			.trim();
		return this.backends.indexOf(Number(last.split(':')[1]));
	}
}

/** One request through the front door: what the webhook process answered, and what the client got. */
export interface FrontRequest {
	backend: number;
	path: string;
	status: number;
	answered: number;
	eventId?: string;
}

/**
 * The public address (WEBHOOK_URL): a pass-through to nginx that can lose answers, as a network
 * can. `loseAnswers(n)` forwards the next n requests but answers the client 502: the webhook process
 * has accepted (and n8n run) the delivery, and the sender retries it.
 */
export class LossyFront {
	readonly log: FrontRequest[] = [];
	url = '';
	private server: Server | undefined;
	private toLose = 0;

	constructor(private readonly nginx: NginxProxy) {}

	loseAnswers(count: number): void {
		this.toLose += count;
	}

	async start(port: number): Promise<this> {
		this.server = createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (chunk: Buffer) => chunks.push(chunk));
			req.on('end', () => {
				const eventId = header(req.headers['x-service-webhook-id']);
				const lose = this.toLose > 0;
				if (lose) this.toLose--;
				const headers: IncomingHttpHeaders = { ...req.headers, host: `127.0.0.1:${this.nginx.port}` };
				const upstream = request({ host: '127.0.0.1', port: this.nginx.port, method: req.method, path: req.url, headers }, (answer) => {
					const answerChunks: Buffer[] = [];
					answer.on('data', (chunk: Buffer) => answerChunks.push(chunk));
					answer.on('end', () => {
						const status = answer.statusCode ?? 0;
						const backend = this.nginx.backendOf(header(answer.headers['x-upstream']));
						this.log.push({ backend, path: req.url ?? '', status, answered: lose ? 502 : status, eventId });
						if (lose) {
							res.writeHead(502, { 'content-type': 'text/plain' }).end('answer lost');
							return;
						}
						res.writeHead(status, answer.headers).end(Buffer.concat(answerChunks));
					});
				});
				upstream.on('error', (error) => {
					this.log.push({ backend: -1, path: req.url ?? '', status: 0, answered: 502, eventId });
					if (!res.headersSent) res.writeHead(502).end(String(error));
				});
				upstream.end(Buffer.concat(chunks));
			});
		});
		this.url = `http://127.0.0.1:${await listenLocal(this.server, port)}`;
		return this;
	}

	async close(): Promise<void> {
		const server = this.server;
		this.server = undefined;
		await closeServer(server);
	}
}

function header(value: string | string[] | undefined): string | undefined {
	return Array.isArray(value) ? value[0] : value;
}
