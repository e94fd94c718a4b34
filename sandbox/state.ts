/** The sandbox's whole state as plain JSON-able data (so it can be saved to a data file), plus seeds. */
import { base58From, dict, evmFrom, seedUuid } from './util';

export const CHAINS = ['ethereum', 'solana', 'base'] as const;
export const ORDER_STATUSES = [
	'AWAITING_FUNDS',
	'FUNDED',
	'LOCKED',
	'PENDING_NET_SETTLEMENT',
	'READY_TO_DISTRIBUTE',
	'DISTRIBUTION_PENDING',
	'DISTRIBUTION_SUBMITTED',
	'DISTRIBUTED',
	'DISTRIBUTION_FAILED',
	'CANCELED',
	'EXPIRED',
	'REMEDIATING_EXPIRED',
	'REMEDIATING_OVERFUNDED',
	'REFUNDED',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export interface SupportedAsset {
	chain: string;
	symbol: string;
	tokenAddress: string;
	tokenDecimals: number;
}

export interface Limits {
	maxTxUsd?: number;
	maxCountPerEpoch?: number;
	maxValuePerEpochUsd?: number;
	maxCountPerDay?: number;
	maxValuePerDayUsd?: number;
}

export interface Account {
	id: string;
	parentId: string | null;
	name: string;
	status: string; // ACTIVE, SUSPENDED, ...
	kyb: string; // APPROVED, PENDING, ...
	provisioned: boolean;
	archived: boolean;
	capabilities: string[];
	limits: Limits;
	apiKey: string;
	/** Further valid keys of the account (operator `POST /sandbox/api-keys`). */
	extraApiKeys?: string[];
	createdAt: string;
}

export interface Wallet {
	address: string;
	chain: string;
	status: string;
}
export interface ChainAddress {
	chain: string;
	address: string;
}

export interface User {
	id: string;
	accountId: string;
	label: string;
	wallets: Wallet[];
	returnWallets: ChainAddress[];
	createdAt: string;
}

export interface InboundTransfer {
	sender: string;
	amountUsd: number;
	chain: string;
	asset: string;
	transactionHash: string;
	observedAt: string;
	status: string;
	version: number;
	refundReference?: string;
	refundTransactionHash?: string;
}

/** One amount that must go back: a whole deposit, or the excess of an overfunding deposit. */
export interface ReturnItem {
	transactionHash: string;
	chain: string;
	asset: string;
	amountUsd: number;
	kind: 'deposit' | 'excess';
	state: 'AWAITING' | 'RETURNING' | 'RETURNED';
	destination?: { source: string; address: string };
	refundReference?: string;
	refundTransactionHash?: string;
}

export interface ReturnDetails {
	userId: string;
	wallets: ChainAddress[];
	revision: number;
	registeredAt: string;
	requestId: string;
}

/** What a keyed write recorded (sandbox/idempotency.ts): the hash of its request and the answer it gave. */
export interface IdempotencyRecord {
	hash: string;
	response: unknown;
}

export interface OrderInternal {
	accountId: string;
	returnDetails: ReturnDetails | null;
	returnRevision: number;
	/** Idempotency-Key -> hash of details and If-Match revision, and the recorded 200 response. */
	returnIdem: Record<string, IdempotencyRecord>;
	returns: ReturnItem[];
	/** Terminal status reached once every queued return has settled. */
	pendingFinal: 'REFUNDED' | 'EXPIRED' | null;
	refundReason?: string;
	failNextDistribution: boolean;
	expireDueAt: number | null; // sandbox ms; the wait is compressed by timeScale
	cancelDueAt: number | null;
	/** The netting window whose close last took the order (for the console). */
	nettedInEpoch?: number;
}

export interface Order {
	id: string;
	rulesetId?: string;
	mode: string;
	senderAccountId: string;
	receiverAccountIds: string[];
	fromUserId: string | null;
	status: OrderStatus;
	version: number;
	asset: string;
	toChain: string;
	toAddress: string;
	amountUsd: number;
	memo: string | null;
	idempotencyKey?: string;
	payoutDestinationId?: string;
	instantFeeBps?: number;
	quoteId?: string;
	quoteFeeBps?: number;
	estimatedSettlementAt?: string;
	createdAt: string;
	expiresAt: string;
	receivedTotal: number;
	inboundTransfers: InboundTransfer[];
	canceledAt?: string;
	cancelRequestedAt?: string;
	cancelReason?: string;
	refundReason?: string;
	refundedAt?: string;
	refundTransactionHash?: string;
	distributionReference?: string;
	settlementReference?: string;
	distributionTransactionHash?: string;
	distributionExecutedAt?: string;
	settledAt?: string;
	/** Sandbox bookkeeping the service keeps out of the public order (owner, returns, timers). */
	internal: OrderInternal;
}

export interface Quote {
	quoteId: string;
	accountId: string;
	name?: string;
	mode: 'instant' | 'standard';
	toAddress?: string;
	toChain: string;
	asset: string;
	amountUsd: number;
	feeBps: number;
	feeUsd: number;
	estimatedSettlement: { estimatedSettlementAt: string; estimatedDurationSeconds: number; basis: string };
	status: string;
	serviceable: boolean;
	reason?: string;
	createdAt: string;
	expiresAt: string;
	expireDueAt: number;
}

export interface Ruleset {
	id: string;
	accountId: string;
	senderUserId: string | null;
	name: string | null;
	status: string;
	deliveredAsset: string;
	deliveredChain: string;
	toAddress: string;
	mode: string;
	forceInstant: boolean;
	metadata: Record<string, unknown>;
	addresses: { chain: string; status: string; address: string | null; failureReason: string | null }[];
	createdAt: string;
	updatedAt: string;
	idempotencyKey?: string;
	bodyHash: string;
}

export interface Endpoint {
	id: string;
	accountId: string;
	url: string;
	description: string | null;
	status: 'ENABLED' | 'DISABLED';
	eventTypes: string[];
	consecutiveFailures: number;
	createdAt: string;
	updatedAt: string;
	disabledAt: string | null;
	deletedAt: string | null;
	secret: string;
	secretNext: string | null;
}

export interface Attempt {
	attempt: number;
	startedAt: string;
	durationMs: number;
	statusCode: number | null;
	error: string | null;
	/** What is kept of the receiver's answer (webhooks.ts keptAnswer): a few JSON fields, or null. */
	responseSnippet: string | null;
	signature: string;
}

export interface Delivery {
	id: string;
	accountId: string;
	endpointId: string;
	eventId: string;
	publicEventType: string;
	status: 'PENDING' | 'DISPATCHED' | 'DELIVERED' | 'FAILED' | 'SKIPPED';
	attemptSalt: number;
	lastStatusCode: number | null;
	lastError: string | null;
	createdAt: string;
	dispatchedAt: string | null;
	deliveredAt: string | null;
	failedAt: string | null;
	envelopeId: string;
	rawBody: string;
	attempts: Attempt[];
	nextAttemptAt: number | null;
	replayOf?: string;
}

export interface RewardRule {
	id: string;
	accountId: string;
	name: string;
	description: string | null;
	version: number;
	status: 'active' | 'archived';
	isDefault: boolean;
	definition: Record<string, unknown>;
	summary: string | null;
	usedBy: unknown[];
	createdAt: string;
	updatedAt: string;
}

/** A simulated on-chain transfer to a deposit address (operator `POST /sandbox/deposits`). */
export interface ChainTx {
	hash: string;
	paymentOrderId: string;
	accountId: string;
	sender: string;
	chain: string;
	asset: string;
	amountUsd: number;
	indexed: boolean;
	attributedTo: string | null;
	createdAt: string;
	/** Funding transfers from the sender inside this one transaction (more than one is refused). */
	transferCount?: number;
}

export interface Usage {
	epoch: number;
	epochCount: number;
	epochValuePips: number;
	day: string;
	dayCount: number;
	dayValuePips: number;
}

export interface Data {
	seed: 'demo' | 'empty';
	clockOffsetMs: number;
	accounts: Account[];
	users: User[];
	orders: Order[];
	quotes: Quote[];
	rulesets: Ruleset[];
	endpoints: Endpoint[];
	deliveries: Delivery[];
	rewardRules: RewardRule[];
	chainTxs: ChainTx[];
	/** `${accountId}:${key}` -> body hash and the recorded 201 response. */
	paymentIdem: Record<string, IdempotencyRecord>;
	/** `${accountId}:POST:/rewards/rules:${key}` -> request hash and the recorded 201 response. */
	rewardIdem: Record<string, IdempotencyRecord>;
	/** Usage per root account (limits belong to the parent; subaccounts count toward it). */
	usage: Record<string, Usage>;
	epoch: number;
}

export const DEMO_API_KEY = 'sk_sandbox_demo_key';

export const SUPPORTED_ASSETS: SupportedAsset[] = [
	{ chain: 'ethereum', symbol: 'USDC', tokenAddress: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48', tokenDecimals: 6 },
	{ chain: 'ethereum', symbol: 'USDG', tokenAddress: '0xe343167631d89b6ffc58b88d6b7fb0228795491d', tokenDecimals: 6 },
	{ chain: 'ethereum', symbol: 'PYUSD', tokenAddress: '0x6c3ea9036406852006290770bedfcaba0e23a0e8', tokenDecimals: 6 },
	{ chain: 'solana', symbol: 'USDC', tokenAddress: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', tokenDecimals: 6 },
	{ chain: 'solana', symbol: 'USDG', tokenAddress: '2u1tszSeqZ3qBWF3uNGPFc8TzMk2tdiwknnRMWGWjGWH', tokenDecimals: 6 },
	{ chain: 'solana', symbol: 'PYUSD', tokenAddress: '2b1kV6DkPAnxd5ixfnxCpjxmKwqjjaYmCZfHsFu24GXo', tokenDecimals: 6 },
	{ chain: 'base', symbol: 'USDC', tokenAddress: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', tokenDecimals: 6 },
	{ chain: 'base', symbol: 'USDG', tokenAddress: '0x5fc4b6f5c5b0c0a4e1b2f1e5d9c0e5b0a6f1d2c3', tokenDecimals: 6 },
	{ chain: 'base', symbol: 'PYUSD', tokenAddress: '0x9d3c1d8f2a8b3e6c0f5a4b7e2d1c9f8a7b6e5d4c', tokenDecimals: 6 },
];

export const DEMO_CAPABILITIES = ['INSTANT_PAYMENT', 'STANDARD_QUOTE_FALLBACK', 'NETTED_QUOTES'];
export const DEMO_LIMITS: Limits = {
	maxTxUsd: 10_000_000,
	maxCountPerEpoch: 1_000_000,
	maxValuePerEpochUsd: 1_000_000_000,
	maxCountPerDay: 5_000_000,
	maxValuePerDayUsd: 5_000_000_000,
};

export const DEMO_ACCOUNT_ID = seedUuid('account:demo');
export const DEMO_SUBACCOUNT_ID = seedUuid('account:demo-sub');
export const DEMO_SUBACCOUNT_KEY = 'sk_sandbox_demo_sub_key';

/** Wallet address a seed user holds on a chain (deterministic). */
export function seedWallet(label: string, chain: string): string {
	return chain === 'solana' ? base58From(`wallet:${label}:${chain}`) : evmFrom(`wallet:${label}:${chain}`);
}

export function emptyData(seed: 'demo' | 'empty', apiKey: string, nowIso: string): Data {
	const root: Account = {
		id: DEMO_ACCOUNT_ID,
		parentId: null,
		name: 'Demo account',
		status: 'ACTIVE',
		kyb: 'APPROVED',
		provisioned: true,
		archived: false,
		capabilities: [...DEMO_CAPABILITIES],
		limits: { ...DEMO_LIMITS },
		apiKey,
		createdAt: nowIso,
	};
	const data: Data = {
		seed,
		clockOffsetMs: 0,
		accounts: [root],
		users: [],
		orders: [],
		quotes: [],
		rulesets: [],
		endpoints: [],
		deliveries: [],
		rewardRules: [],
		chainTxs: [],
		paymentIdem: dict(),
		rewardIdem: dict(),
		usage: dict(),
		epoch: 1,
	};
	if (seed === 'empty') return data;
	data.accounts.push({
		id: DEMO_SUBACCOUNT_ID,
		parentId: root.id,
		name: 'Demo subaccount',
		status: 'ACTIVE',
		kyb: 'APPROVED',
		provisioned: true,
		archived: false,
		capabilities: [...DEMO_CAPABILITIES],
		limits: {},
		apiKey: DEMO_SUBACCOUNT_KEY,
		createdAt: nowIso,
	});
	for (const label of ['alice', 'bob']) {
		data.users.push({
			id: seedUuid(`user:${label}`),
			accountId: root.id,
			label,
			createdAt: nowIso,
			returnWallets: [],
			wallets: CHAINS.map((chain) => ({ chain, address: seedWallet(label, chain), status: 'ACTIVE' })),
		});
	}
	// A user of the subaccount, so subaccount scoping can be tried at once.
	data.users.push({
		id: seedUuid('user:carol'),
		accountId: DEMO_SUBACCOUNT_ID,
		label: 'carol',
		createdAt: nowIso,
		returnWallets: [],
		wallets: CHAINS.map((chain) => ({ chain, address: seedWallet('carol', chain), status: 'ACTIVE' })),
	});
	return data;
}
