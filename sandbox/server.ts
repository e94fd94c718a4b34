/** startSandbox(): the main API (+ operator API under /sandbox) and the rewards API on their own ports. */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { Core } from './core';
import { connectAddress, ownHostNames, publicHostName, urlHost } from './edge';
import { Engine } from './engine';
import { registerOperator } from './operator';
import { Traffic } from './traffic';
import { Router, SANDBOX_HEADER, makeHandler } from './router';
import { registerDepositAddresses } from './routes/depositAddresses';
import { registerLimits } from './routes/limits';
import { registerOrders } from './routes/orders';
import { registerQuotes } from './routes/quotes';
import { registerRewards } from './routes/rewards';
import { registerRulesets } from './routes/rulesets';
import { registerSupportedAssets } from './routes/supportedAssets';
import { registerUsers } from './routes/users';
import { registerWebhookRoutes } from './routes/webhooks';
import type { Services } from './services';
import { DEMO_API_KEY } from './state';
import { Webhooks } from './webhooks';

export interface SandboxOptions {
	/** The address both servers listen on (default 127.0.0.1; 0.0.0.0 or :: for every interface). */
	host?: string;
	/** Host names the servers answer besides 127.0.0.1, localhost, [::1] and the bound address (e.g. host.docker.internal). */
	publicHosts?: string[];
	port?: number;
	rewardsPort?: number;
	seed?: 'demo' | 'empty';
	timeScale?: number;
	dataFile?: string;
	apiKey?: string;
	/**
	 * Webhook endpoints on loopback (127.0.0.0/8, localhost, [::1]), which the service refuses: only on
	 * these ports (the CLI's --allow-loopback-webhooks=5678,5679). `true` admits every loopback port: for
	 * in-process tests whose receivers take free ports; the CLI never sets it.
	 */
	allowLoopbackWebhooks?: boolean | readonly number[];
	/** Resolve webhook hosts at registration; refuse names that do not resolve or resolve to non-public addresses. */
	resolveWebhookHosts?: boolean;
	/** Resolver for resolveWebhookHosts (in-process tests); default the system resolver. */
	webhookLookup?: (host: string) => Promise<string[]>;
	/** Per-attempt delivery timeout in ms (default: 10 s ÷ timeScale, at least 250 ms). */
	attemptTimeoutMs?: number;
	/** Attempts before a delivery is FAILED (default the service's 60): fewer where only what follows FAILED is tested. */
	deliveryAttempts?: number;
	/** Answer every refusal as `{error: sentence}` worded unlike the sandbox's texts (a test double for clients). */
	rewordErrors?: boolean;
	log?: boolean;
}

export interface Sandbox {
	/** The URLs a client on this machine uses (a loopback address when bound to 0.0.0.0 or ::). */
	mainUrl: string;
	rewardsUrl: string;
	/** The Host names each server answers, with its port (see edge.ts). */
	hostNames: { main: string[]; rewards: string[] };
	apiKey: string;
	operatorUrl: string;
	close(): Promise<void>;
	/** In-process access for tests that want it; HTTP is the contract. */
	services: Services;
}

function listen(server: http.Server, port: number, host: string): Promise<number> {
	return new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
	});
}

/** HTTP-level errors Node's parser raises before any handler runs, as a clear status. */
const CLIENT_ERRORS: Record<string, [number, string]> = {
	HPE_HEADER_OVERFLOW: [431, 'headers_too_large'],
	ERR_HTTP_REQUEST_TIMEOUT: [408, 'request_timeout'],
	HPE_HEADERS_TIMEOUT: [408, 'request_timeout'],
	HPE_INVALID_METHOD: [400, 'invalid_method'],
	HPE_INVALID_URL: [400, 'invalid_request_target'],
	HPE_INVALID_VERSION: [400, 'invalid_http_version'],
};

/** A whole HTTP/1.1 answer with a JSON body, written straight to a socket. */
function rawAnswer(status: number, body: unknown): string {
	const text = JSON.stringify(body);
	return `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(text)}\r\n${SANDBOX_HEADER}: 1\r\nconnection: close\r\n\r\n${text}`;
}

/**
 * Malformed request lines and headers never reach the handler: answer them with a JSON 4xx and
 * close; short timeouts so that half-sent requests do not hold sockets for minutes.
 */
function hardened(server: http.Server): http.Server {
	server.headersTimeout = 15_000;
	server.requestTimeout = 60_000;
	server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
		if (err.code === 'ECONNRESET' || !socket.writable) {
			socket.destroy();
			return;
		}
		const [status, error] = CLIENT_ERRORS[err.code ?? ''] ?? [400, 'bad_request'];
		socket.end(rawAnswer(status, { error, message: `Malformed HTTP request (${err.code ?? 'parse error'})` }));
	});
	// CONNECT (a proxy tunnel) is not served; without a listener Node would drop the connection unanswered.
	server.on('connect', (_req: http.IncomingMessage, socket: Duplex) => {
		socket.end(rawAnswer(405, { error: 'method_not_allowed', message: 'CONNECT is not supported' }));
	});
	return server;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
	const host = options.host ?? '127.0.0.1';
	const publicHosts = (options.publicHosts ?? []).map(publicHostName); // throws on a malformed name, before anything listens
	const timeScale = options.timeScale && options.timeScale > 0 ? options.timeScale : 1;
	const core = new Core({
		seed: options.seed ?? 'demo',
		timeScale,
		apiKey: options.apiKey ?? DEMO_API_KEY,
		dataFile: options.dataFile,
		allowLoopbackWebhooks: options.allowLoopbackWebhooks ?? false,
		log: options.log ?? false,
		resolveWebhookHosts: options.resolveWebhookHosts ?? false,
		webhookLookup: options.webhookLookup,
		attemptTimeoutMs: options.attemptTimeoutMs,
		deliveryAttempts: options.deliveryAttempts,
		rewordErrors: options.rewordErrors ?? false,
	});
	const webhooks = new Webhooks(core);
	const engine = new Engine(core, webhooks);
	core.resume();
	const traffic = new Traffic();
	const svc: Services = { core, engine, webhooks, traffic };

	const main = new Router();
	registerSupportedAssets(main);
	registerUsers(main, svc);
	registerDepositAddresses(main, svc);
	registerLimits(main, svc);
	registerOrders(main, svc);
	registerQuotes(main, svc);
	registerRulesets(main, svc);
	registerWebhookRoutes(main, svc);
	const operator = new Router();
	registerOperator(operator, svc);
	const rewards = new Router();
	registerRewards(rewards, svc);

	// Empty until each server listens (its port is known then): until that, every request is refused.
	const mainNames = new Set<string>();
	const rewardsNames = new Set<string>();
	const mainServer = hardened(http.createServer(makeHandler({ api: 'main', router: main, operator, traffic, core, hostNames: mainNames })));
	const rewardsServer = hardened(http.createServer(makeHandler({ api: 'rewards', router: rewards, traffic, core, hostNames: rewardsNames })));
	const mainPort = await listen(mainServer, options.port ?? 0, host);
	const rewardsPort = await listen(rewardsServer, options.rewardsPort ?? 0, host);
	for (const n of ownHostNames(host, mainPort, publicHosts)) mainNames.add(n);
	for (const n of ownHostNames(host, rewardsPort, publicHosts)) rewardsNames.add(n);

	const saver = setInterval(() => {
		if (core.dirty) {
			try {
				core.save();
			} catch (e) {
				core.log('save failed', e);
			}
		}
	}, 5000);
	saver.unref();

	const local = urlHost(connectAddress(host));
	const mainUrl = `http://${local}:${mainPort}`;
	let closed = false;
	return {
		mainUrl,
		rewardsUrl: `http://${local}:${rewardsPort}`,
		hostNames: { main: [...mainNames], rewards: [...rewardsNames] },
		apiKey: core.root().apiKey,
		operatorUrl: `${mainUrl}/sandbox`,
		services: svc,
		async close() {
			if (closed) return;
			closed = true;
			clearInterval(saver);
			core.scheduler.close();
			const stop = (s: http.Server) =>
				new Promise<void>((resolve) => {
					s.close(() => resolve());
					s.closeAllConnections();
				});
			await Promise.all([stop(mainServer), stop(rewardsServer)]);
			await webhooks.close();
			if (options.dataFile) core.save();
		},
	};
}
