/** Chain and asset values matched as Map Automatically matches columns (shared/serviceErrors.ts `matchedPair`). */
import { matchedPair, type SupportedAsset } from '../../nodes/shared/serviceErrors';

const assets: SupportedAsset[] = [
	{ chain: 'ethereum', symbol: 'USDC' },
	{ chain: 'ethereum', symbol: 'PYUSD' },
	{ chain: 'base', symbol: 'USDC' },
	{ chain: 'bsc', symbol: 'USDT' },
];

test.each([
	['ethereum', 'USDC', { chain: 'ethereum', asset: 'USDC' }],
	['Ethereum', 'usdc', { chain: 'ethereum', asset: 'USDC' }],
	[' BASE ', 'Usdc', { chain: 'base', asset: 'USDC' }],
	// The panel's display name, in any case or spacing:
	['BNB Smart Chain', 'usdt', { chain: 'bsc', asset: 'USDT' }],
	['bnb-smart-chain', 'USDT', { chain: 'bsc', asset: 'USDT' }],
])('%p / %p is the service value %p', (chain, asset, expected) => {
	expect(matchedPair(chain, asset, assets)).toEqual(expected);
});

test.each([
	['Mars', 'USDC', { chain: 'Mars', asset: 'USDC' }],
	['ethereum', 'USDT', { chain: 'ethereum', asset: 'USDT' }],
	['', 'USDC', { chain: '', asset: 'USDC' }],
])('%p / %p matches nothing and is left as given (refused later with the valid values)', (chain, asset, expected) => {
	expect(matchedPair(chain, asset, assets)).toEqual(expected);
});

test('two listed values that match one name: neither is taken', () => {
	const twins: SupportedAsset[] = [
		{ chain: 'Base', symbol: 'USDC' },
		{ chain: 'base', symbol: 'USDC' },
		{ chain: 'base', symbol: 'usdc' },
	];
	expect(matchedPair('BASE', 'Usdc', twins)).toEqual({ chain: 'BASE', asset: 'Usdc' });
	// An exact value is always itself.
	expect(matchedPair('base', 'usdc', twins)).toEqual({ chain: 'base', asset: 'usdc' });
	expect(matchedPair('base', 'USDC ', twins)).toEqual({ chain: 'base', asset: 'USDC ' });
});

test('a wallet chain without an asset', () => {
	expect(matchedPair('Ethereum', undefined, assets)).toEqual({ chain: 'ethereum' });
});
