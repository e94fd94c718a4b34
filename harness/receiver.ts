import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
	method: string;
	/** The request target as sent: path and query. */
	path: string;
	headers: IncomingHttpHeaders;
	/** The body's exact bytes (what a signature covers). */
	bytes: Buffer;
	/** The body as UTF-8 text. */
	raw: string;
	/** The body parsed as JSON; null when empty or not JSON. */
	body: any;
	/** When it arrived (Date.now()). */
	at: number;
}

/** A status (answered with a small JSON body), a full answer, or 'hang': never answer. */
export type Answer = number | 'hang' | { status: number; body?: unknown };

/**
 * A local HTTP server on 127.0.0.1 that records every request and answers as `respond` decides
 * (200 unless told): it stands in for webhook consumers, n8n's webhook server in the node tests,
 * and third-party services (Slack, a ledger) in the tests and the benchmarks.
 */
export class Receiver {
	readonly received: ReceivedRequest[] = [];
	/** Decides each answer; may be async (the request is recorded before it is called). */
	respond: (request: ReceivedRequest) => Answer | Promise<Answer> = () => 200;
	/** http://127.0.0.1:<port>, once started. */
	url = '';
	private server: Server | undefined;

	/** Listens on `port` (a free one when 0). */
	async start(port = 0): Promise<this> {
		const server = createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (chunk: Buffer) => chunks.push(chunk));
			req.on('end', () => {
				const bytes = Buffer.concat(chunks);
				const raw = bytes.toString('utf8');
				const request: ReceivedRequest = {
					method: req.method ?? '',
					path: req.url ?? '',
					headers: req.headers,
					bytes,
					raw,
					body: parseJson(raw),
					at: Date.now(),
				};
				this.received.push(request);
				void Promise.resolve()
					.then(() => this.respond(request))
					.then(
						(answer) => {
							if (answer === 'hang') return;
							const { status, body } = typeof answer === 'number' ? { status: answer, body: { ok: answer >= 200 && answer < 300 } } : answer;
							res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body ?? {}));
						},
						// A respond() that throws is a broken test: answer 500 rather than leave the caller waiting.
						(error: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error)),
					);
			});
		});
		this.url = `http://127.0.0.1:${await listenLocal(server, port)}`;
		this.server = server;
		return this;
	}

	/** JSON bodies received on a path (query included), in order. */
	json(path: string): any[] {
		return this.received.filter((r) => r.path === path).map((r) => r.body);
	}

	/** Stops listening and drops open connections (a hanging answer included). */
	async close(): Promise<void> {
		const server = this.server;
		this.server = undefined;
		await closeServer(server);
	}
}

/** Listens on 127.0.0.1:`port` (a free one when 0); resolves with the port. */
export async function listenLocal(server: Server, port = 0): Promise<number> {
	await new Promise<void>((done, fail) => {
		server.once('error', fail);
		server.listen(port, '127.0.0.1', () => done());
	});
	return (server.address() as AddressInfo).port;
}

/** Stops a server and drops its open connections (keep-alive and hanging ones included). */
export async function closeServer(server: Server | undefined): Promise<void> {
	if (!server) return;
	server.closeAllConnections();
	await new Promise<void>((done) => server.close(() => done()));
}

function parseJson(raw: string): any {
	if (!raw) return null;
	try {
		return JSON.parse(raw);
	} catch {
		return null;
	}
}
