import { createHash } from 'node:crypto';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';

export interface ProxiedRequest {
	/** Index of the backend the request went to. */
	backend: number;
	method: string;
	path: string;
	/** What the backend answered. */
	status: number;
	/** What the client got (differs when the answer was deliberately lost). */
	answered: number;
	eventId?: string;
}

/**
 * The one public entry point in front of the webhook processes (as a load balancer would be):
 * round-robin over the backends, one request each in turn. `loseAnswers(n)` forwards the next n
 * requests but answers the client 502, as when an acknowledgement is lost on the way back: the
 * backend has already accepted (and n8n run) the delivery, and the sender retries it.
 */
export class RoundRobinProxy {
	readonly log: ProxiedRequest[] = [];
	url = '';
	private server: Server | undefined;
	private next = 0;
	private toLose = 0;
	/**
	 * Route a webhook delivery by its event id (`X-Service-Webhook-Id`) instead of round robin, as a
	 * load balancer hashing on that header would: every copy of one event reaches the same process.
	 */
	routeByEventId = false;

	constructor(private backends: number[] = []) {}

	setBackends(ports: number[]): void {
		this.backends = ports;
	}

	loseAnswers(count: number): void {
		this.toLose += count;
	}

	async start(port = 0): Promise<this> {
		this.server = createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (chunk: Buffer) => chunks.push(chunk));
			req.on('end', () => {
				const body = Buffer.concat(chunks);
				if (this.backends.length === 0) {
					res.writeHead(503).end('no backend');
					return;
				}
				const eventId = header(req.headers['x-service-webhook-id']);
				const backend = this.routeByEventId && eventId ? hash(eventId) % this.backends.length : this.next++ % this.backends.length;
				const lose = this.toLose > 0;
				if (lose) this.toLose--;
				const headers: IncomingHttpHeaders = { ...req.headers, host: `127.0.0.1:${this.backends[backend]}` };
				const upstream = request(
					{ host: '127.0.0.1', port: this.backends[backend], method: req.method, path: req.url, headers },
					(answer) => {
						const answerChunks: Buffer[] = [];
						answer.on('data', (chunk: Buffer) => answerChunks.push(chunk));
						answer.on('end', () => {
							const status = answer.statusCode ?? 0;
							this.log.push({ backend, method: req.method ?? '', path: req.url ?? '', status, answered: lose ? 502 : status, eventId });
							if (lose) {
								res.writeHead(502, { 'content-type': 'text/plain' }).end('answer lost');
								return;
							}
							res.writeHead(status, answer.headers).end(Buffer.concat(answerChunks));
						});
					},
				);
				upstream.on('error', (error) => {
					this.log.push({ backend, method: req.method ?? '', path: req.url ?? '', status: 0, answered: 502 });
					if (!res.headersSent) res.writeHead(502).end(String(error));
				});
				upstream.end(body);
			});
		});
		await new Promise<void>((done) => this.server!.listen(port, '127.0.0.1', () => done()));
		const address = this.server.address();
		this.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
		return this;
	}

	async close(): Promise<void> {
		const server = this.server;
		this.server = undefined;
		if (!server) return;
		server.closeAllConnections();
		await new Promise<void>((done) => server.close(() => done()));
	}
}

function hash(value: string): number {
	return createHash('sha256').update(value).digest().readUInt32BE(0);
}

function header(value: string | string[] | undefined): string | undefined {
	return Array.isArray(value) ? value[0] : value;
}
