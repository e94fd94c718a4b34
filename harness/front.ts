import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';

import { closeServer, listenLocal } from './receiver';

/** What the front does to one answer of the server behind it. */
export interface FrontTreatment {
	/** Forward the request (the server acts on it), then close the client's connection unanswered: a lost answer. */
	loseAnswer?: boolean;
	/** Answer headers left out (e.g. the sandbox's mark). */
	dropHeaders?: string[];
	/** The server acted on the request; its answer goes back with this status instead (e.g. a gateway's 503). */
	status?: number;
	/** A new JSON body from the server's (parsed) one. */
	rewrite?: (body: any) => unknown;
}

/**
 * Something in front of a server (a proxy, a gateway, a flaky network) on 127.0.0.1: it forwards
 * every request as it came and hands back the server's answer, unless `treat` says to lose it, change
 * its status, drop some of its headers or rewrite its JSON body. The requests are real; only what comes back differs.
 */
export class Front {
	/** Decides per request; forwards untouched when it returns undefined. */
	treat: (request: { method: string; path: string }) => FrontTreatment | undefined = () => undefined;
	/** Requests that reached the front, as `METHOD /path?query`. */
	readonly seen: string[] = [];
	url = '';
	private server: Server | undefined;

	constructor(private readonly target: string) {}

	async start(): Promise<this> {
		const upstreamUrl = new URL(this.target);
		this.server = createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (chunk: Buffer) => chunks.push(chunk));
			req.on('end', () => {
				const method = req.method ?? 'GET';
				const path = req.url ?? '/';
				this.seen.push(`${method} ${path}`);
				const treatment = this.treat({ method, path: path.split('?')[0] }) ?? {};
				const headers: IncomingHttpHeaders = { ...req.headers, host: upstreamUrl.host };
				const upstream = request({ host: upstreamUrl.hostname, port: upstreamUrl.port, method, path, headers }, (answer) => {
					const answerChunks: Buffer[] = [];
					answer.on('data', (chunk: Buffer) => answerChunks.push(chunk));
					answer.on('end', () => {
						if (treatment.loseAnswer) {
							res.socket?.destroy();
							return;
						}
						const out = { ...answer.headers };
						for (const name of treatment.dropHeaders ?? []) delete out[name.toLowerCase()];
						let body = Buffer.concat(answerChunks);
						if (treatment.rewrite && body.length > 0) {
							body = Buffer.from(JSON.stringify(treatment.rewrite(JSON.parse(body.toString('utf8')))));
							out['content-length'] = String(body.length);
						}
						res.writeHead(treatment.status ?? answer.statusCode ?? 502, out).end(body);
					});
				});
				upstream.on('error', (error) => {
					if (!res.headersSent) res.writeHead(502).end(String(error));
				});
				upstream.end(Buffer.concat(chunks));
			});
		});
		this.url = `http://127.0.0.1:${await listenLocal(this.server)}`;
		return this;
	}

	async close(): Promise<void> {
		const server = this.server;
		this.server = undefined;
		await closeServer(server);
	}
}
