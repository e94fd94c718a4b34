/** The spend-limit rules on their own (nodes/shared/spendLimits.ts). */
import { parseUsdAmount } from '../../nodes/shared/amounts';
import {
	addToRunTotal,
	checkAiFilledFields,
	checkOrder,
	checkRunTotal,
	fromAiProblem,
	modelInputProblem,
	parseSpendLimits,
} from '../../nodes/shared/spendLimits';

const order = (extra = {}) => ({
	fromUserId: 'u1',
	toAddress: '0xAbC0000000000000000000000000000000000001',
	toChain: 'ethereum',
	asset: 'USDC',
	amount: parseUsdAmount('100'),
	...extra,
});

test('empty limits allow anything and check nothing', () => {
	const limits = parseSpendLimits({}, {});
	expect(checkOrder(limits, order())).toEqual([]);
	expect(checkRunTotal(limits, [parseUsdAmount('1000')])?.text).toBe('1000');
});

test('lists split on commas, semicolons and new lines; blanks are dropped', () => {
	const limits = parseSpendLimits({ allowedAssets: ' USDC ;\n, usdt ', allowedChains: 'base,\nethereum', allowedRecipients: '\n' }, {});
	expect(limits.allowedAssets).toEqual(['USDC', 'usdt']);
	expect(limits.allowedChains).toEqual(['base', 'ethereum']);
	expect(limits.allowedRecipients).toBeUndefined();
});

test('the per-order maximum is exact to the pip', () => {
	const limits = parseSpendLimits({ maxAmountPerOrder: '100' }, {});
	expect(() => checkOrder(limits, order({ amount: parseUsdAmount('100') }))).not.toThrow();
	expect(() => checkOrder(limits, order({ amount: parseUsdAmount('100.0001') }))).toThrow(
		'Spend limit Max Amount per Order (USD): the order asks for 100.0001 USD, over the limit of 100 USD',
	);
});

test('recipients: EVM addresses in any case, other addresses exactly, chain: pins the chain', () => {
	const limits = parseSpendLimits({ allowedRecipients: '0xabc0000000000000000000000000000000000001, solana:SoLaNaAddr1' }, {});
	expect(() => checkOrder(limits, order())).not.toThrow();
	expect(() => checkOrder(limits, order({ toAddress: 'SoLaNaAddr1', toChain: 'solana' }))).not.toThrow();
	expect(() => checkOrder(limits, order({ toAddress: 'solanaaddr1', toChain: 'solana' }))).toThrow(/Allowed Recipients: solanaaddr1 on solana/);
	expect(() => checkOrder(limits, order({ toAddress: 'SoLaNaAddr1', toChain: 'base' }))).toThrow(/Allowed Recipients/);
});

test('the run total counts every amount and is exact', () => {
	const limits = parseSpendLimits({ maxTotalPerRun: '0.3' }, {});
	expect(
		checkRunTotal(
			limits,
			['0.1', '0.2'].map((a) => parseUsdAmount(a)),
		)?.text,
	).toBe('0.3');
	expect(() =>
		checkRunTotal(
			limits,
			['0.1', '0.2', '0.0001'].map((a) => parseUsdAmount(a)),
		),
	).toThrow(
		'Spend limit Max Total per Run (USD): the 3 orders of this run ask for 0.3001 USD in total, over the limit of 0.3 USD. Nothing was sent for any item',
	);
});

test('$fromAI in a limit is refused in any case and spacing, and only there', () => {
	expect(() => parseSpendLimits({ maxTotalPerRun: '5' }, { maxTotalPerRun: "={{ $FromAi ('x') }}" })).toThrow(
		'Spend Limits → Max Total per Run (USD) may not be left to an AI model ($fromAI): set it in the node',
	);
	expect(fromAiProblem('={{ $json.fromAI }}', 'X')).toBeUndefined();
	expect(fromAiProblem({ nested: "={{ $fromAI('a') }}" }, 'X')).toMatch(/X may not be left/);
});

test('an amount or recipient left to the model needs its limit', () => {
	const none = parseSpendLimits({}, {});
	expect(() => checkAiFilledFields(none, { amountUsd: "={{ $fromAI('amountUsd') }}" })).toThrow(/Max Amount per Order \(USD\) is not set/);
	expect(() => checkAiFilledFields(none, { toAddress: "={{ $fromAI('to') }}" })).toThrow(/Allowed Recipients is not set/);
	expect(() => checkAiFilledFields(parseSpendLimits({ maxAmountPerOrder: '5' }, {}), { amountUsd: "={{ $fromAI('amountUsd') }}" })).not.toThrow();
	expect(() => checkAiFilledFields(none, { amountUsd: '={{ $json.amount }}', toAddress: '0xabc' })).not.toThrow();
});

test('a limit that is not an amount names the field and the rule', () => {
	expect(() => parseSpendLimits({ maxAmountPerOrder: '-5' }, {})).toThrow('Spend Limits → Max Amount per Order (USD): must be greater than 0');
});

test("in an AI agent's tool run every money field is the model's: both limits are required however the fields are written", () => {
	const none = parseSpendLimits({}, {});
	expect(() => checkAiFilledFields(none, { amountUsd: '={{ $json.amount }}', toAddress: '0xabc' }, true)).toThrow(
		/AI agent's tool, so Amount \(USD\) comes from the model/,
	);
	expect(() => checkAiFilledFields(none, { amountUsd: '10', toAddress: '0xabc' }, true)).toThrow(/Max Amount per Order \(USD\) is not set/);
	expect(() => checkAiFilledFields(parseSpendLimits({ maxAmountPerOrder: '5' }, {}), {}, true)).toThrow(/Allowed Recipients is not set/);
	expect(() => checkAiFilledFields(parseSpendLimits({ maxAmountPerOrder: '5', allowedRecipients: '0xabc' }, {}), {}, true)).not.toThrow();
});

test('a tool run may not read a guard or a destination from the tool call', () => {
	for (const raw of [
		'={{ $json.max }}',
		'={{ $input.first().json.max }}',
		"={{ $fromAI('max') }}",
		"={{ $('Chat').item.json.max }}",
		{ maxAmountPerOrder: '={{ $json.m }}' },
	]) {
		expect(modelInputProblem(raw, 'Spend Limits')).toMatch(/^Spend Limits may not read the AI agent's tool call/);
	}
	for (const raw of ['100', '={{ $vars.MAX_ORDER }}', '={{ 50 * 2 }}', undefined]) expect(modelInputProblem(raw, 'Spend Limits')).toBeUndefined();
});

test('Max Total per Run as a running sum of what is sent', () => {
	const limits = parseSpendLimits({ maxTotalPerRun: '10' }, {});
	const sent = addToRunTotal(limits, 0n, parseUsdAmount('4'));
	expect(addToRunTotal(limits, sent, parseUsdAmount('6'))).toBe(parseUsdAmount('10').pips);
	expect(() => addToRunTotal(limits, sent, parseUsdAmount('6.0001'))).toThrow(
		"Spend limit Max Total per Run (USD): this order's 6.0001 USD would bring what this run sends to 10.0001 USD, over the limit of 10 USD",
	);
	expect(addToRunTotal(parseSpendLimits({}, {}), 10n ** 12n, parseUsdAmount('600'))).toBe(10n ** 12n + parseUsdAmount('600').pips);
});
