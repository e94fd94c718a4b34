import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { parseUsdAmount, type UsdAmount } from '../../../../shared/amounts';
import { limitBreaches, remainingText } from '../../../../shared/limits';
import {
	addToRunTotal,
	checkAiFilledFields,
	checkOrder,
	checkRunTotal,
	modelInputProblem,
	parseSpendLimits,
	SpendLimitError,
	type OrderTerms,
	type SpendLimits,
} from '../../../../shared/spendLimits';
import { readAccountLimits } from '../../accountLimits';
import { isDryRun, noteFinding } from '../../dryRun';
import { operationError } from '../../parameters';
import { orderAmount } from '../orderAmount';
import { isToolRun } from '../../toolDescriptions';

/**
 * Create's spend limits over the rules of shared/spendLimits.ts: read once per run, Max Total per Run over
 * the whole batch before any item starts (`preflight`, so Concurrency cannot race it), each order before
 * it is sent, and what the run actually sends (`countSent`).
 */
export const spendLimitsField: INodeProperties = {
	displayName: 'Spend Limits',
	name: 'spendLimits',
	type: 'collection',
	placeholder: 'Add Limit',
	default: {},
	description:
		'Checked before anything is sent; a breach sends nothing for the item (or, for Max Total per Run, for the whole batch) and names the rule. Read once per run. Never filled by an AI agent: $fromAI() is refused here.',
	options: [
		{
			displayName: 'Allowed Assets',
			name: 'allowedAssets',
			type: 'string',
			default: '',
			placeholder: 'e.g. USDC, USDT',
			description: 'Asset symbols the recipient may receive, separated by commas or new lines (any case). Empty: any asset.',
		},
		{
			displayName: 'Allowed Chains',
			name: 'allowedChains',
			type: 'string',
			default: '',
			placeholder: 'e.g. ethereum, base',
			description: 'Chains the recipient may be paid on, separated by commas or new lines. Empty: any chain.',
		},
		{
			displayName: 'Allowed Recipients',
			name: 'allowedRecipients',
			type: 'string',
			typeOptions: { rows: 4 },
			default: '',
			placeholder: 'e.g. 0x52908400098527886e0f7030069857d2e4169ee7, base:0x1f9840a85d5af5bf1d1762f925bdaddc4201f984',
			description:
				'Recipient addresses that may be paid, separated by commas or new lines; "chain:address" allows the address on that chain only. EVM addresses (0x…) compare in any case. Empty: any registered recipient. Required when Recipient Address is left to an AI model.',
		},
		{
			displayName: 'Allowed Sender User IDs',
			name: 'allowedSenders',
			type: 'string',
			typeOptions: { rows: 2 },
			default: '',
			placeholder: 'e.g. 80146f91-be0e-47f5-ade4-12f4d64b2c88',
			description: 'System IDs of the users who may fund orders made here, separated by commas or new lines. Empty: any user.',
		},
		{
			displayName: 'Max Amount per Order (USD)',
			name: 'maxAmountPerOrder',
			type: 'string',
			default: '',
			placeholder: 'e.g. 500.00',
			description: 'Largest amount one order may ask for, in US dollars. Empty: no limit. Required when Amount (USD) is left to an AI model.',
		},
		{
			displayName: 'Max Total per Run (USD)',
			name: 'maxTotalPerRun',
			type: 'string',
			default: '',
			placeholder: 'e.g. 10000',
			description:
				'Largest sum of the amounts of all input items of one run of this node, in US dollars. Checked before the first order is sent: a batch over it sends nothing. Empty: no limit.',
		},
	],
};

interface RunLimits {
	limits: SpendLimits;
	total?: UsdAmount;
	/** How many orders `total` adds up. */
	orders: number;
	/** What this run sent so far. */
	sentPips: bigint;
}

const runs = new WeakMap<object, RunLimits>();

const NOTHING_SENT = 'Nothing was sent. Spend limits are set in the node (Spend Limits) by the workflow owner; an AI agent cannot change them.';

/** A SpendLimitError as the item's error. */
function limitError(ctx: IExecuteFunctions, error: unknown, itemIndex: number): NodeOperationError {
	if (error instanceof SpendLimitError) return operationError(ctx, error.message, itemIndex, NOTHING_SENT);
	return error instanceof NodeOperationError ? error : new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
}

function readLimits(ctx: IExecuteFunctions): SpendLimits {
	const raw = (ctx.getNode().parameters.spendLimits ?? {}) as IDataObject;
	const toolRun = isToolRun(ctx);
	try {
		// A tool run's input item is the model's tool call: a limit read from it is the model's.
		const problem = toolRun ? modelInputProblem(raw, 'Spend Limits') : undefined;
		if (problem) throw new SpendLimitError('Spend Limits', problem);
		const limits = parseSpendLimits(ctx.getNodeParameter('spendLimits', 0, {}) as IDataObject, raw);
		checkAiFilledFields(limits, ctx.getNode().parameters, toolRun);
		return limits;
	} catch (error) {
		throw limitError(ctx, error, 0);
	}
}

/** The amount of one item, or undefined when it does not parse (the item fails on its own). */
function itemAmount(ctx: IExecuteFunctions, itemIndex: number): UsdAmount | undefined {
	try {
		return orderAmount(ctx, itemIndex, ctx.getNodeParameter('dataMode', itemIndex, 'defineBelow') === 'autoMapInputData');
	} catch {
		return undefined;
	}
}

/** Once per run, before any item: the limits, Max Total per Run over every item, and a dry run's reads. */
export async function preflight(ctx: IExecuteFunctions, itemCount: number): Promise<void> {
	const run: RunLimits = { limits: readLimits(ctx), sentPips: 0n, orders: 0 };
	runs.set(ctx, run);
	const dryRun = isDryRun(ctx);
	if (run.limits.maxTotalPerRun || dryRun) {
		const amounts: UsdAmount[] = [];
		for (let itemIndex = 0; itemIndex < itemCount; itemIndex++) {
			const amount = itemAmount(ctx, itemIndex);
			if (amount) amounts.push(amount);
		}
		try {
			run.total = checkRunTotal(run.limits, amounts);
			run.orders = amounts.length;
		} catch (error) {
			throw limitError(ctx, error, 0);
		}
	}
}

/** This run's limits, read on first use when preflight did not run. */
function runLimits(ctx: IExecuteFunctions): RunLimits {
	let run = runs.get(ctx);
	if (!run) {
		run = { limits: readLimits(ctx), sentPips: 0n, orders: 0 };
		runs.set(ctx, run);
	}
	return run;
}

/** Checks one order against the spend limits; in a dry run (`notes`) notes what passed. */
export function checkSpendLimits(ctx: IExecuteFunctions, itemIndex: number, order: OrderTerms, notes = true): void {
	const run = runLimits(ctx);
	let passed: string[];
	try {
		passed = checkOrder(run.limits, order);
	} catch (error) {
		throw limitError(ctx, error, itemIndex);
	}
	if (run.total && run.limits.maxTotalPerRun) {
		passed.push(`the run's total ${run.total.text} USD is within Max Total per Run ${run.limits.maxTotalPerRun.text}`);
	}
	if (notes) for (const finding of passed) noteFinding(ctx, itemIndex, `Spend limit passed: ${finding}`);
}

/** A check's breaches; a limit not read exactly stops the dry run as it stops Check Account Limits First. */
function breachesOf(ctx: IExecuteFunctions, itemIndex: number, checked: ReturnType<typeof limitBreaches>): string[] {
	if ('unreadable' in checked) throw operationError(ctx, checked.unreadable.message, itemIndex);
	return checked.breaches;
}

/** Dry run: the order, then the run's total and count, against the account limits. */
export async function dryRunAccountLimits(ctx: IExecuteFunctions, itemIndex: number, amount: UsdAmount, subaccount: IDataObject | undefined): Promise<void> {
	const { total, orders } = runLimits(ctx);
	const accountLimits = await readAccountLimits(ctx, itemIndex, subaccount);
	const problems = breachesOf(ctx, itemIndex, limitBreaches(accountLimits, { order: amount }));
	if (problems.length > 0) {
		throw operationError(ctx, `Dry run: the payment would breach the account limits: ${problems.join('; ')}`, itemIndex);
	}
	const batch = total ? breachesOf(ctx, itemIndex, limitBreaches(accountLimits, { run: total, orders })) : [];
	noteFinding(
		ctx,
		itemIndex,
		batch.length > 0
			? `Account limits: this order fits, but the whole run (${orders} orders, ${total!.text} USD) would not: ${batch.join('; ')}`
			: `Account limits: this order${total ? ` and the whole run (${total.text} USD)` : ''} fit what remains (${remainingText(accountLimits)})`,
	);
}

/** Counts the amount about to be sent (the first try's) against Max Total per Run. Synchronous: concurrent items cannot both pass. */
export function countSent(ctx: IExecuteFunctions, itemIndex: number, amountUsd: unknown): void {
	const run = runs.get(ctx);
	if (!run) throw operationError(ctx, 'Nothing was sent for this item: the spend limits of this run were not read', itemIndex);
	try {
		run.sentPips = addToRunTotal(run.limits, run.sentPips, parseUsdAmount(amountUsd, 'Amount (USD)'));
	} catch (error) {
		throw limitError(ctx, error, itemIndex);
	}
}
