import { createServer, type Server } from 'node:http';

export interface ReceivedRequest {
	method: string;
	path: string;
	headers: Record<string, string | string[] | undefined>;
	body: string;
}

/**
 * A local HTTP receiver on 127.0.0.1 that answers 200 and records what it got: it stands in for
 * webhook consumers and third-party services (Slack, a ledger) in the tests.
 */
export class Receiver {
	readonly received: ReceivedRequest[] = [];
	private server: Server | undefined;
	url = '';

	async start(): Promise<this> {
		this.server = createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (chunk: Buffer) => chunks.push(chunk));
			req.on('end', () => {
				this.received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
				res.setHeader('content-type', 'application/json');
				res.end('{"ok":true}');
			});
		});
		await new Promise<void>((done) => this.server!.listen(0, '127.0.0.1', () => done()));
		const address = this.server.address();
		this.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
		return this;
	}

	/** JSON bodies received on a path. */
	json(path: string): any[] {
		return this.received.filter((r) => r.path === path).map((r) => JSON.parse(r.body));
	}

	async close(): Promise<void> {
		await new Promise<void>((done) => (this.server ? this.server.close(() => done()) : done()));
	}
}
