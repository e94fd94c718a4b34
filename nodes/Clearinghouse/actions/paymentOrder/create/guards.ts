import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { UsdAmount } from '../../../../shared/amounts';
import { isDryRun, noteFinding } from '../../dryRun';
import { checkSpendLimits, dryRunAccountLimits } from './spendLimits';
import { checkChainAndAsset, matchChainAndAsset } from '../../supportedAssets';
import { operationError, subaccountQuery } from '../../parameters';
import { readAccountLimits } from '../../accountLimits';
import { limitBreaches } from '../../../../shared/limits';

const CREATE = { operation: 'Payment Order → Create', sends: 'order' };

/**
 * Create's guards of one order, in the order a dry run reports them: spend limits, chain and asset, and in
 * a dry run the account limits. `rowCheck`: as the row's own check (checkRow), without a dry run's notes.
 */
export async function guardOrder(ctx: IExecuteFunctions, itemIndex: number, body: IDataObject, amount: UsdAmount, rowCheck = false): Promise<void> {
	// The chain and asset as the service names them first: the spend limits compare the values sent.
	await matchChainAndAsset(ctx, itemIndex, body, CREATE);
	const order = termsOf(body, amount);
	checkSpendLimits(ctx, itemIndex, order, !rowCheck);
	await checkChainAndAsset(ctx, itemIndex, body, CREATE);
	if (rowCheck || !isDryRun(ctx)) return;
	noteFinding(ctx, itemIndex, `Supported assets: ${order.asset} on ${order.toChain} is supported`);
	await dryRunAccountLimits(ctx, itemIndex, amount, subaccountQuery(body));
}

function termsOf(body: IDataObject, amount: UsdAmount) {
	return {
		fromUserId: String(body.fromUserId ?? ''),
		toAddress: String(body.toAddress ?? ''),
		toChain: String(body.toChain ?? ''),
		asset: String(body.asset ?? ''),
		amount,
	};
}

/** Options → Check Account Limits First: refuses an order that would not fit the account's limits (a dry run reads them once). */
export async function checkAccountLimits(ctx: IExecuteFunctions, itemIndex: number, amount: UsdAmount, subaccount: IDataObject | undefined): Promise<void> {
	const limits = await readAccountLimits(ctx, itemIndex, subaccount, !isDryRun(ctx));
	const checked = limitBreaches(limits, { order: amount });
	if ('unreadable' in checked) {
		throw operationError(
			ctx,
			checked.unreadable.message,
			itemIndex,
			'Nothing was sent. Options → Check Account Limits First reads GET /account/limits and sends no order it cannot check against them.',
		);
	}
	const problems = checked.breaches;
	if (problems.length > 0) {
		throw operationError(
			ctx,
			`The payment would breach the account limits: ${problems.join('; ')}`,
			itemIndex,
			'Nothing was sent. Limits belong to the parent account and count every subaccount; lower the amount or wait for the window or day to roll over.',
		);
	}
}
