import type { IDataObject } from 'n8n-workflow';

/** How users name the chains the API calls `ethereum`, `base`, ...; unknown chains get a capital. */
const CHAIN_NAMES: Record<string, string> = {
	ethereum: 'Ethereum',
	base: 'Base',
	solana: 'Solana',
	polygon: 'Polygon',
	arbitrum: 'Arbitrum',
	optimism: 'Optimism',
	avalanche: 'Avalanche',
	tron: 'Tron',
	stellar: 'Stellar',
	bsc: 'BNB Smart Chain',
};

export function chainDisplayName(chain: string): string {
	return CHAIN_NAMES[chain.toLowerCase()] ?? (chain === '' ? chain : chain[0].toUpperCase() + chain.slice(1));
}

/** `0x52908400…9ee7`: enough to recognise an address in a list without filling the row. */
export function shortAddress(address: string): string {
	return address.length > 14 ? `${address.slice(0, 8)}…${address.slice(-4)}` : address;
}

/**
 * A payment order's row in From List, leading with what identifies the payout for a person:
 * memo, amount and asset, chain, status, then the shortened recipient address.
 */
export function paymentOrderLabel(order: IDataObject): string {
	const parts = [
		`${String(order.amountUsd ?? '?')} ${String(order.asset ?? '')}`.trim(),
		order.toChain ? `on ${chainDisplayName(String(order.toChain))}` : '',
	].filter(Boolean);
	const memo = typeof order.memo === 'string' && order.memo.trim() !== '' ? `${order.memo.trim()} · ` : '';
	const to = order.toAddress ? ` · to ${shortAddress(String(order.toAddress))}` : '';
	return `${memo}${parts.join(' ')} · ${String(order.status ?? '')}${to}`;
}
