import { readJsonPath, trivialJsonPath } from '../../nodes/shared/jsonPath';

describe('trivialJsonPath', () => {
	test.each([
		['={{ $json.a }}', ['a']],
		['={{$json.a.b_c.$d}}', ['a', 'b_c', '$d']],
		['={{   $json.amountUsd   }}', ['amountUsd']],
	])('%s is trivial', (text, path) => {
		expect(trivialJsonPath(text)).toEqual(path);
	});

	test.each([
		'={{ $json }}',
		'={{ $json["a"] }}',
		'={{ $json.a[0] }}',
		'={{ $json.a }} ',
		'={{ $json.a }}\n',
		'x={{ $json.a }}',
		'={{ $json.a + 1 }}',
		'={{ $json.a.trim() }}',
		'={{ $json.0 }}',
		'={{ $input.item.json.a }}',
		'={{ $json.__proto__ }}',
		'={{ $json.a.constructor }}',
		'={{ $json.prototype }}',
		'={{ $json.toString }}',
		'={{ $json.hasOwnProperty }}',
		'={{ $json.binding }}',
		'$json.a',
		'{{ $json.a }}',
	])('%j goes to the engine', (text) => {
		expect(trivialJsonPath(text)).toBeUndefined();
	});

	test('non-strings go to the engine', () => {
		expect(trivialJsonPath(5)).toBeUndefined();
		expect(trivialJsonPath({ value: '={{ $json.a }}' })).toBeUndefined();
	});
});

describe('readJsonPath', () => {
	test('strings and finite numbers through own fields of plain objects', () => {
		expect(readJsonPath({ a: { b: 'x' } }, ['a', 'b'])).toEqual({ value: 'x' });
		expect(readJsonPath({ a: 0 }, ['a'])).toEqual({ value: 0 });
		expect(readJsonPath({ a: '' }, ['a'])).toEqual({ value: '' });
	});

	test.each([
		['a missing field', {}, ['a']],
		['null on the way', { a: null }, ['a', 'b']],
		['an array on the way', { a: [{ b: 'x' }] }, ['a', 'b']],
		['a string on the way', { a: 'abc' }, ['a', 'length']],
		['an inherited field', Object.create({ a: 'x' }), ['a']],
		[
			'a class instance',
			{
				a: new (class {
					b = 'x';
				})(),
			},
			['a', 'b'],
		],
		['a boolean', { a: true }, ['a']],
		['null', { a: null }, ['a']],
		['an object', { a: {} }, ['a']],
		['an array', { a: [] }, ['a']],
		['NaN', { a: NaN }, ['a']],
		['Infinity', { a: Infinity }, ['a']],
		['-0', { a: -0 }, ['a']],
		['a date', { a: new Date(0) }, ['a']],
		['no item', undefined, ['a']],
	])('%s goes to the engine', (_, json, path) => {
		expect(readJsonPath(json, path)).toBeUndefined();
	});
});
