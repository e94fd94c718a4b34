/** The sandbox core: data, lookup indexes, clock, auth and subaccount scoping shared by every route. */
import * as fs from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { Scheduler } from './scheduler';
import {
	Account,
	ChainTx,
	Data,
	Delivery,
	Endpoint,
	Order,
	OrderInternal,
	Quote,
	RewardRule,
	Ruleset,
	User,
	SUPPORTED_ASSETS,
	emptyData,
	DEMO_API_KEY,
} from './state';
import { dict, fail, base58From, evmFrom } from './util';

export interface CoreOptions {
	seed: 'demo' | 'empty';
	timeScale: number;
	apiKey: string;
	dataFile?: string;
	/** Loopback webhook targets: on these ports, on every port (true, in-process tests), or none. */
	allowLoopbackWebhooks: boolean | readonly number[];
	/** Resolve webhook hosts at registration and refuse non-public answers (off: the sandbox runs offline). */
	resolveWebhookHosts?: boolean;
	/** The resolver for that check (tests inject one); default the system resolver. */
	webhookLookup?: (host: string) => Promise<string[]>;
	/**
	 * Per-attempt delivery timeout (ms). Default: the service's 10 s divided by timeScale, at least
	 * 250 ms. Tests that scale time far up set it so that a slow receiver on a loaded machine is not
	 * taken for a timeout (which the sandbox then retries, as the service would).
	 */
	attemptTimeoutMs?: number;
	/** Attempts before a delivery is FAILED. Default the service's MAX_ATTEMPTS (60). */
	deliveryAttempts?: number;
	/** Word every refusal of the public APIs differently from the sandbox's own texts (router.ts reworded()). */
	rewordErrors?: boolean;
	log: boolean;
}

export interface Auth {
	account: Account;
}

export class Core {
	data!: Data;
	orders = new Map<string, Order>();
	users = new Map<string, User>();
	accounts = new Map<string, Account>();
	quotes = new Map<string, Quote>();
	rulesets = new Map<string, Ruleset>();
	endpoints = new Map<string, Endpoint>();
	deliveries = new Map<string, Delivery>();
	rules = new Map<string, RewardRule>();
	chainTxs = new Map<string, ChainTx>();
	scheduler: Scheduler;
	dirty = false;
	/** Set by the engine and webhook modules (avoids import cycles); run once by resume(). */
	onResume: Array<() => void> = [];

	constructor(public opts: CoreOptions) {
		this.scheduler = new Scheduler(opts.timeScale, (e) => this.log('task error', e));
		this.reset(opts.seed);
		if (opts.dataFile && fs.existsSync(opts.dataFile)) {
			this.load(JSON.parse(fs.readFileSync(opts.dataFile, 'utf8')) as Data);
		}
	}

	log(...args: unknown[]): void {
		if (this.opts.log) console.error('[sandbox]', ...args);
	}

	now(): number {
		return this.scheduler.now();
	}
	iso(ms?: number): string {
		return this.scheduler.iso(ms);
	}

	reset(seed: 'demo' | 'empty'): void {
		this.scheduler.clear();
		this.scheduler.offsetMs = 0;
		this.load(emptyData(seed, this.opts.apiKey || DEMO_API_KEY, new Date().toISOString()));
	}

	/** Takes `data` as the whole state and indexes it; the waits it had in progress re-arm in resume(). */
	load(data: Data): void {
		// Records keyed by client strings lose their prototype (a data file is plain JSON).
		data.paymentIdem = dict(data.paymentIdem);
		data.rewardIdem = dict(data.rewardIdem);
		data.usage = dict(data.usage);
		for (const o of data.orders) {
			// Data files written before `Order.internal` had its name keep it under `x`.
			const legacy = o as Order & { x?: OrderInternal };
			if (legacy.x) {
				o.internal = legacy.x;
				delete legacy.x;
			}
			o.internal.returnIdem = dict(o.internal.returnIdem);
		}
		this.data = data;
		this.scheduler.offsetMs = data.clockOffsetMs ?? 0;
		const index = <T>(map: Map<string, T>, items: T[], key: (t: T) => string) => {
			map.clear();
			for (const it of items) map.set(key(it), it);
		};
		index(this.orders, data.orders, (o) => o.id);
		index(this.users, data.users, (u) => u.id);
		index(this.accounts, data.accounts, (a) => a.id);
		index(this.quotes, data.quotes, (q) => q.quoteId);
		index(this.rulesets, data.rulesets, (r) => r.id);
		index(this.endpoints, data.endpoints, (e) => e.id);
		index(this.deliveries, data.deliveries, (d) => d.id);
		index(this.rules, data.rewardRules, (r) => r.id);
		index(this.chainTxs, data.chainTxs, (t) => t.hash);
		this.dirty = true;
	}

	/**
	 * Start-up, once the engine and webhook modules have registered their hooks: re-arms every wait
	 * that the loaded data file had in progress (a fresh seed has none).
	 */
	resume(): void {
		for (const f of this.onResume) f();
	}

	save(): void {
		if (!this.opts.dataFile) return;
		this.data.clockOffsetMs = this.scheduler.offsetMs;
		const tmp = this.opts.dataFile + '.tmp';
		fs.writeFileSync(tmp, JSON.stringify(this.data));
		fs.renameSync(tmp, this.opts.dataFile);
		this.dirty = false;
	}

	root(): Account {
		return this.data.accounts.find((a) => a.parentId === null)!;
	}
	familyRoot(acc: Account): Account {
		return acc.parentId ? this.accounts.get(acc.parentId)! : acc;
	}
	children(acc: Account): Account[] {
		return this.data.accounts.filter((a) => a.parentId === acc.id);
	}

	/** x-api-key → account; 401 when missing or unknown, 403 when the account is not ACTIVE/APPROVED. */
	authenticate(headers: IncomingHttpHeaders): Auth {
		const key = headers['x-api-key'];
		if (typeof key !== 'string' || key.trim() === '') fail(401, 'unauthorized', 'Missing x-api-key header');
		const account = this.data.accounts.find((a) => a.apiKey === key || a.extraApiKeys?.includes(key));
		if (!account || account.archived) fail(401, 'unauthorized', 'Invalid API key');
		const gate = (a: Account) => {
			if (a.status !== 'ACTIVE' || a.kyb !== 'APPROVED') fail(403, 'account_not_active', `Account ${a.id} is ${a.status} with KYB ${a.kyb}`);
		};
		gate(this.familyRoot(account));
		gate(account);
		return { account };
	}

	/** A direct, non-archived child of the caller; 403 otherwise (not owned, sibling, archived). */
	child(auth: Auth, subaccountId: string): Account {
		const sub = this.accounts.get(subaccountId);
		if (!sub || sub.parentId !== auth.account.id || sub.archived)
			fail(403, 'forbidden', `Subaccount ${subaccountId} is not a direct subaccount of this account`);
		return sub;
	}

	/** Read scope from query parameters: the list of account ids a read spans. */
	readScope(auth: Auth, subaccountId?: string, includeSubaccounts?: boolean): Account[] {
		if (subaccountId && includeSubaccounts) fail(400, 'invalid_request', 'includeSubaccounts=true cannot be combined with subaccountId');
		if (subaccountId) return [this.child(auth, subaccountId)];
		if (includeSubaccounts) return [auth.account, ...this.children(auth.account).filter((c) => !c.archived)];
		return [auth.account];
	}

	/** Write scope from a body field: paused children (suspended or KYB under review) are read-only. */
	writeScope(auth: Auth, subaccountId?: string): Account {
		if (!subaccountId) return auth.account;
		const sub = this.child(auth, subaccountId);
		this.assertWritable(sub);
		return sub;
	}
	assertWritable(acc: Account): void {
		if (acc.status !== 'ACTIVE' || acc.kyb !== 'APPROVED')
			fail(403, 'subaccount_read_only', `Account ${acc.id} is ${acc.status} with KYB ${acc.kyb}: read-only`);
	}

	/** Accounts whose resources a caller may touch by id (own account and non-archived children). */
	visibleAccountIds(auth: Auth, subaccountId?: string): Set<string> {
		if (subaccountId) return new Set([this.child(auth, subaccountId).id]);
		return new Set([
			auth.account.id,
			...this.children(auth.account)
				.filter((c) => !c.archived)
				.map((c) => c.id),
		]);
	}

	depositAddresses(acc: Account): { chain: string; symbol: string; address: string }[] {
		return SUPPORTED_ASSETS.map((a) => ({
			chain: a.chain,
			symbol: a.symbol,
			address: a.chain === 'solana' ? base58From(`deposit:${acc.id}:${a.chain}`) : evmFrom(`deposit:${acc.id}:${a.chain}`),
		}));
	}

	isSupported(chain: string, asset?: string): boolean {
		return SUPPORTED_ASSETS.some((a) => a.chain === chain && (asset === undefined || a.symbol === asset));
	}

	/** Wallet of any user of the account (the "registered wallet of the account"). */
	accountWallet(accountId: string, chain: string, address: string): { user: User; status: string } | null {
		let found: { user: User; status: string } | null = null;
		for (const u of this.data.users) {
			if (u.accountId !== accountId) continue;
			for (const w of u.wallets) {
				if (w.chain === chain && w.address === address) {
					if (w.status === 'ACTIVE') return { user: u, status: w.status };
					found = found ?? { user: u, status: w.status };
				}
			}
		}
		return found;
	}
}
