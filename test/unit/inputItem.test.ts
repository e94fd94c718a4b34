import { InputFieldError, orderFieldsFromItem } from '../../nodes/Clearinghouse/actions/paymentOrder/inputItem';

const row = {
	fromUserId: ' usr_1 ',
	toAddress: '0xabc',
	toChain: 'ethereum',
	asset: 'USDC',
	amountUsd: '12.5',
	memo: 'm',
	reference: 'INV-1',
};

describe('orderFieldsFromItem (Map Automatically)', () => {
	test('reads the fields by exact name, trims text, keeps the amount as found', () => {
		expect(orderFieldsFromItem(row, 'reference')).toEqual({
			fromUserId: 'usr_1',
			toAddress: '0xabc',
			toChain: 'ethereum',
			asset: 'USDC',
			amountUsd: '12.5',
			memo: 'm',
			businessKey: 'INV-1',
		});
		expect(orderFieldsFromItem({ ...row, amountUsd: 7 }).amountUsd).toBe(7);
	});

	test('no key field: no business key read', () => {
		expect(orderFieldsFromItem(row)).not.toHaveProperty('businessKey');
	});

	test('memo is optional; numbers are taken as text', () => {
		const { memo, ...rest } = row;
		void memo;
		expect(orderFieldsFromItem(rest).memo).toBe('');
		expect(orderFieldsFromItem({ ...row, fromUserId: 42 }).fromUserId).toBe('42');
	});

	test.each([
		['missing', { toAddress: undefined }, 'Input field "toAddress" is missing from the input item'],
		['null', { asset: null }, 'Input field "asset" is missing from the input item'],
		['empty', { toChain: '  ' }, 'Input field "toChain" is empty in the input item'],
		['an object', { toChain: { a: 1 } }, 'Input field "toChain" must be text (got object)'],
		['a list', { fromUserId: ['u'] }, 'Input field "fromUserId" must be text (got a list)'],
		['a boolean', { memo: true }, 'Input field "memo" must be text (got boolean)'],
		['NaN', { toAddress: NaN }, 'Input field "toAddress" must be text (got number)'],
		['no amount', { amountUsd: undefined }, 'Input field "amountUsd" is missing from the input item'],
		['no key', { reference: undefined }, 'Input field "reference" is missing from the input item (it holds the business key)'],
	])('refuses a field that is %s', (_, change, message) => {
		expect(() => orderFieldsFromItem({ ...row, ...change } as never, 'reference')).toThrow(InputFieldError);
		expect(() => orderFieldsFromItem({ ...row, ...change } as never, 'reference')).toThrow(message);
	});

	test('an empty key field name is refused', () => {
		expect(() => orderFieldsFromItem(row, ' ')).toThrow('is empty: name the input field that holds the key');
	});

	test('only own fields count: nothing inherited, not even through __proto__', () => {
		const inherited = Object.create({ toAddress: '0xabc' });
		Object.assign(inherited, { ...row, toAddress: undefined });
		delete inherited.toAddress;
		expect(() => orderFieldsFromItem(inherited)).toThrow('Input field "toAddress" is missing');
		const polluted = JSON.parse('{"__proto__": {"amountUsd": "1"}}');
		expect(() => orderFieldsFromItem({ ...row, amountUsd: undefined, ...polluted })).toThrow('"amountUsd" is missing');
	});
});
