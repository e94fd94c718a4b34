/** startSandbox(): the main API (+ operator API under /sandbox) and the rewards API on their own ports. */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Core } from './core';
import { Engine } from './engine';
import { registerOperator } from './operator';
import { Router, Traffic, makeHandler } from './router';
import { registerAccounts } from './routes/accounts';
import { registerOrders } from './routes/orders';
import { registerQuotes } from './routes/quotes';
import { registerRewards } from './routes/rewards';
import { registerRulesets } from './routes/rulesets';
import { registerWebhookRoutes } from './routes/webhooks';
import type { Services } from './services';
import { DEMO_API_KEY } from './state';
import { Webhooks } from './webhooks';

export interface SandboxOptions {
	host?: string;
	port?: number;
	rewardsPort?: number;
	seed?: 'demo' | 'empty';
	timeScale?: number;
	dataFile?: string;
	apiKey?: string;
	allowLoopbackWebhooks?: boolean;
	log?: boolean;
}

export interface Sandbox {
	mainUrl: string;
	rewardsUrl: string;
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

const urlHost = (host: string) => (host.includes(':') ? `[${host}]` : host);

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
	const host = options.host ?? '127.0.0.1';
	const timeScale = options.timeScale && options.timeScale > 0 ? options.timeScale : 1;
	const core = new Core({
		seed: options.seed ?? 'demo', timeScale, apiKey: options.apiKey ?? DEMO_API_KEY, dataFile: options.dataFile,
		allowLoopbackWebhooks: options.allowLoopbackWebhooks ?? false, log: options.log ?? false,
	});
	const webhooks = new Webhooks(core);
	const engine = new Engine(core, webhooks);
	// Loading a data file happened before the engine existed: re-arm its pending work now.
	if (options.dataFile) for (const f of core.onResume) f();
	const traffic = new Traffic();
	const svc: Services = { core, engine, webhooks, traffic };

	const main = new Router();
	registerAccounts(main, svc);
	registerOrders(main, svc);
	registerQuotes(main, svc);
	registerRulesets(main, svc);
	registerWebhookRoutes(main, svc);
	const operator = new Router();
	registerOperator(operator, svc);
	const rewards = new Router();
	registerRewards(rewards, svc);

	const mainServer = http.createServer(makeHandler({ api: 'main', router: main, operator, traffic, core }));
	const rewardsServer = http.createServer(makeHandler({ api: 'rewards', router: rewards, traffic, core }));
	const mainPort = await listen(mainServer, options.port ?? 0, host);
	const rewardsPort = await listen(rewardsServer, options.rewardsPort ?? 0, host);

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

	const mainUrl = `http://${urlHost(host)}:${mainPort}`;
	let closed = false;
	return {
		mainUrl,
		rewardsUrl: `http://${urlHost(host)}:${rewardsPort}`,
		apiKey: core.root().apiKey,
		operatorUrl: `${mainUrl}/sandbox`,
		services: svc,
		async close() {
			if (closed) return;
			closed = true;
			clearInterval(saver);
			core.scheduler.close();
			const stop = (s: http.Server) => new Promise<void>((resolve) => {
				s.close(() => resolve());
				s.closeAllConnections();
			});
			await Promise.all([stop(mainServer), stop(rewardsServer)]);
			await webhooks.close();
			if (options.dataFile) core.save();
		},
	};
}
