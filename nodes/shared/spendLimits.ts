import type { IDataObject } from 'n8n-workflow';

import { fromPips, parseUsdAmount, type UsdAmount } from './amounts';

/**
 * Spend limits of Payment Order → Create, the pure rules, checked before anything is sent (the guard over
 * a run: actions/paymentOrder/create/spendLimits.ts). A limit written as `$fromAI(…)` is refused: the
 * model must never choose its own limits.
 */

/** `$fromAI(` in any case and spacing, as n8n finds it (n8n-workflow's extractFromAICalls). */
const FROM_AI = /\$fromai\s*\(/i;

/** Why a parameter value left to the AI model is refused here, or undefined when it is not. */
export function fromAiProblem(raw: unknown, label: string): string | undefined {
	const text = typeof raw === 'string' ? raw : raw && typeof raw === 'object' ? JSON.stringify(raw) : '';
	return FROM_AI.test(text) ? `${label} may not be left to an AI model ($fromAI): set it in the node` : undefined;
}

function leftToAi(raw: unknown): boolean {
	return typeof raw === 'string' && FROM_AI.test(raw);
}

export interface SpendLimits {
	maxAmountPerOrder?: UsdAmount;
	maxTotalPerRun?: UsdAmount;
	allowedRecipients?: Array<{ chain?: string; address: string }>;
	allowedSenders?: string[];
	allowedAssets?: string[];
	allowedChains?: string[];
}

/** A breach: the rule (its panel label), the value and the limit, in words. */
export class SpendLimitError extends Error {
	constructor(
		readonly rule: string,
		message: string,
	) {
		super(message);
		this.name = 'SpendLimitError';
	}
}

const LABELS = {
	maxAmountPerOrder: 'Max Amount per Order (USD)',
	maxTotalPerRun: 'Max Total per Run (USD)',
	allowedRecipients: 'Allowed Recipients',
	allowedSenders: 'Allowed Sender User IDs',
	allowedAssets: 'Allowed Assets',
	allowedChains: 'Allowed Chains',
} as const;

function list(value: unknown): string[] | undefined {
	const entries = (Array.isArray(value) ? value.map(String) : String(value ?? '').split(/[,\n;]/)).map((entry) => entry.trim()).filter((entry) => entry !== '');
	return entries.length > 0 ? entries : undefined;
}

/**
 * The limits from the Spend Limits collection as n8n resolved it (`resolved`) and as it is stored
 * (`raw`: the texts before any expression runs, to find `$fromAI`). Throws SpendLimitError.
 */
export function parseSpendLimits(resolved: IDataObject, raw: IDataObject): SpendLimits {
	for (const [name, label] of Object.entries(LABELS)) {
		const problem = fromAiProblem(raw[name], `Spend Limits → ${label}`);
		if (problem) throw new SpendLimitError(label, problem);
	}
	const amount = (name: 'maxAmountPerOrder' | 'maxTotalPerRun'): UsdAmount | undefined => {
		const value = resolved[name];
		if (value === undefined || value === null || String(value).trim() === '') return undefined;
		let problem = '';
		try {
			return parseUsdAmount(value, `Spend Limits → ${LABELS[name]}`);
		} catch (error) {
			problem = (error as Error).message;
		}
		throw new SpendLimitError(LABELS[name], problem);
	};
	const recipients = list(resolved.allowedRecipients)?.map((entry) => {
		const at = entry.indexOf(':');
		return at > 0 ? { chain: entry.slice(0, at).trim(), address: entry.slice(at + 1).trim() } : { address: entry };
	});
	return {
		maxAmountPerOrder: amount('maxAmountPerOrder'),
		maxTotalPerRun: amount('maxTotalPerRun'),
		allowedRecipients: recipients,
		allowedSenders: list(resolved.allowedSenders),
		allowedAssets: list(resolved.allowedAssets),
		allowedChains: list(resolved.allowedChains),
	};
}

/** EVM addresses are case-insensitive (the service stores them lowercased); others compare exactly. */
function sameAddress(a: string, b: string): boolean {
	return /^0x[0-9a-f]+$/i.test(a) && /^0x[0-9a-f]+$/i.test(b) ? a.toLowerCase() === b.toLowerCase() : a === b;
}

export interface OrderTerms {
	fromUserId: string;
	toAddress: string;
	toChain: string;
	asset: string;
	amount: UsdAmount;
}

/** Throws SpendLimitError for the first limit one order breaks; returns what it checked, in words. */
export function checkOrder(limits: SpendLimits, order: OrderTerms): string[] {
	const passed: string[] = [];
	if (limits.maxAmountPerOrder) {
		if (order.amount.pips > limits.maxAmountPerOrder.pips) {
			throw new SpendLimitError(
				LABELS.maxAmountPerOrder,
				`Spend limit ${LABELS.maxAmountPerOrder}: the order asks for ${order.amount.text} USD, over the limit of ${limits.maxAmountPerOrder.text} USD`,
			);
		}
		passed.push(`${order.amount.text} USD is within ${LABELS.maxAmountPerOrder} ${limits.maxAmountPerOrder.text}`);
	}
	if (limits.allowedRecipients) {
		const allowed = limits.allowedRecipients.some(
			(entry) => sameAddress(entry.address, order.toAddress) && (entry.chain === undefined || entry.chain.toLowerCase() === order.toChain.toLowerCase()),
		);
		if (!allowed) {
			throw new SpendLimitError(
				LABELS.allowedRecipients,
				`Spend limit ${LABELS.allowedRecipients}: ${order.toAddress} on ${order.toChain} is not in the list (${limits.allowedRecipients.length} allowed)`,
			);
		}
		passed.push(`recipient ${order.toAddress} on ${order.toChain} is in ${LABELS.allowedRecipients}`);
	}
	if (limits.allowedSenders) {
		if (!limits.allowedSenders.includes(order.fromUserId)) {
			throw new SpendLimitError(
				LABELS.allowedSenders,
				`Spend limit ${LABELS.allowedSenders}: ${order.fromUserId} is not in the list (${limits.allowedSenders.join(', ')})`,
			);
		}
		passed.push(`sender ${order.fromUserId} is in ${LABELS.allowedSenders}`);
	}
	if (limits.allowedAssets) {
		if (!limits.allowedAssets.some((asset) => asset.toUpperCase() === order.asset.toUpperCase())) {
			throw new SpendLimitError(
				LABELS.allowedAssets,
				`Spend limit ${LABELS.allowedAssets}: ${order.asset} is not in the list (${limits.allowedAssets.join(', ')})`,
			);
		}
		passed.push(`asset ${order.asset} is in ${LABELS.allowedAssets}`);
	}
	if (limits.allowedChains) {
		if (!limits.allowedChains.some((chain) => chain.toLowerCase() === order.toChain.toLowerCase())) {
			throw new SpendLimitError(
				LABELS.allowedChains,
				`Spend limit ${LABELS.allowedChains}: ${order.toChain} is not in the list (${limits.allowedChains.join(', ')})`,
			);
		}
		passed.push(`chain ${order.toChain} is in ${LABELS.allowedChains}`);
	}
	return passed;
}

/** Max Total per Run over the batch: every amount that parses counts, even of an item another rule refuses. Throws SpendLimitError. */
export function checkRunTotal(limits: SpendLimits, amounts: UsdAmount[]): UsdAmount | undefined {
	if (amounts.length === 0) return undefined;
	const total = fromPips(amounts.reduce((sum, amount) => sum + amount.pips, 0n));
	if (limits.maxTotalPerRun && total.pips > limits.maxTotalPerRun.pips) {
		throw new SpendLimitError(
			LABELS.maxTotalPerRun,
			`Spend limit ${LABELS.maxTotalPerRun}: the ${amounts.length} orders of this run ask for ${total.text} USD in total, over the limit of ${limits.maxTotalPerRun.text} USD. Nothing was sent for any item`,
		);
	}
	return total;
}

/**
 * Max Total per Run as a running sum of what the run sends (`sentPips`: earlier orders): counts the amount
 * of the very request, so an expression that gives another amount at send time cannot slip past checkRunTotal.
 */
export function addToRunTotal(limits: SpendLimits, sentPips: bigint, amount: UsdAmount): bigint {
	const total = sentPips + amount.pips;
	if (limits.maxTotalPerRun && total > limits.maxTotalPerRun.pips) {
		throw new SpendLimitError(
			LABELS.maxTotalPerRun,
			`Spend limit ${LABELS.maxTotalPerRun}: this order's ${amount.text} USD would bring what this run sends to ${fromPips(total).text} USD, over the limit of ${limits.maxTotalPerRun.text} USD`,
		);
	}
	return total;
}

/** Parameters of Create that an AI model may fill only under a limit: parameter → the limit it needs. */
const NEEDS_LIMIT_WHEN_LEFT_TO_AI: Array<{ parameter: string; label: string; limit: keyof SpendLimits }> = [
	{ parameter: 'amountUsd', label: 'Amount (USD)', limit: 'maxAmountPerOrder' },
	{ parameter: 'toAddress', label: 'Recipient Address', limit: 'allowedRecipients' },
];

/**
 * Refuses a Create whose amount or recipient is left to the model with no limit on it. In a `toolRun` the
 * input item is the model's arguments, so every money field counts as the model's: both limits are required.
 */
export function checkAiFilledFields(limits: SpendLimits, rawParameters: IDataObject, toolRun = false): void {
	for (const { parameter, label, limit } of NEEDS_LIMIT_WHEN_LEFT_TO_AI) {
		if (limits[limit] !== undefined) continue;
		const what = parameter === 'amountUsd' ? 'amount' : 'registered recipient';
		if (toolRun) {
			throw new SpendLimitError(
				LABELS[limit],
				`This node runs as an AI agent's tool, so ${label} comes from the model (its tool call is the input item, however the field is written), but Spend Limits → ${LABELS[limit]} is not set: an agent could pay any ${what}. Set the limit in the node`,
			);
		}
		if (leftToAi(rawParameters[parameter])) {
			throw new SpendLimitError(
				LABELS[limit],
				`${label} is left to an AI model ($fromAI) but Spend Limits → ${LABELS[limit]} is not set: an agent could pay any ${what}. Set the limit in the node`,
			);
		}
	}
}

/** Texts that read what an AI agent's tool call put in the input item (or ask the model directly). */
const MODEL_INPUT = /\$fromai\s*\(|\$json\b|\$input\b|\$item\b|\$binary\b|\$\(\s*['"`]/i;

/** Why a parameter of a tool run may not be written so: a guard or destination read from the model's arguments lets the model choose it. */
export function modelInputProblem(raw: unknown, label: string): string | undefined {
	const text = typeof raw === 'string' ? raw : raw && typeof raw === 'object' ? JSON.stringify(raw) : '';
	return MODEL_INPUT.test(text)
		? `${label} may not read the AI agent's tool call ($json, $input, $fromAI or another node's data) when this node runs as a tool: the model would choose it. Set it in the node`
		: undefined;
}
