import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/**
 * In the nodes, a function named `…Error` (operationError, keyedWriteError, itemError) returns the
 * error and leaves the throw to its caller. A bare call does nothing (the sandbox's `fail` throws,
 * which makes that slip easy to make), so every such call must be thrown, returned or assigned.
 * Not ours to return: n8n's `emitError` (a trigger's way to report) and callbacks named `on…Error`.
 */
const REPORTING_CALLS = /^(emitError|on\w*Error)$/;
function bareErrorCalls(fileName: string, text: string): string[] {
	const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
	const found: string[] = [];
	const visit = (node: ts.Node): void => {
		if (ts.isExpressionStatement(node)) {
			let expression: ts.Expression = node.expression;
			while (ts.isParenthesizedExpression(expression) || ts.isAwaitExpression(expression) || ts.isVoidExpression(expression)) {
				expression = expression.expression;
			}
			if (ts.isCallExpression(expression)) {
				const callee = ts.isPropertyAccessExpression(expression.expression) ? expression.expression.name : expression.expression;
				if (ts.isIdentifier(callee) && /^[a-z]\w*Error$/.test(callee.text) && !REPORTING_CALLS.test(callee.text)) {
					const { line } = source.getLineAndCharacterOfPosition(node.getStart());
					found.push(`${fileName}:${line + 1} ${callee.text}(…)`);
				}
			}
		}
		ts.forEachChild(node, visit);
	};
	visit(source);
	return found;
}

function sourceFiles(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) return sourceFiles(path);
		return entry.name.endsWith('.ts') ? [path] : [];
	});
}

const root = join(__dirname, '..', '..');

describe('error-returning helpers in the nodes', () => {
	it('finds a bare call, and passes thrown, returned and assigned ones', () => {
		const text = [
			'function f(ctx, i) {',
			'  operationError(ctx, "lost", i);',
			'  await keyedWriteError(ctx, e, i, k, "x");',
			'  helpers.itemError(ctx, e, i);',
			'  throw operationError(ctx, "kept", i);',
			'}',
			'const e = operationError(ctx, "kept", 0);',
			'function g() { return itemError(ctx, e, 0); }',
			'console.error("not ours");',
			'ctx.emitError(new Error("reported"));',
			'onError(e);',
		].join('\n');
		expect(bareErrorCalls('snippet.ts', text)).toEqual(['snippet.ts:2 operationError(…)', 'snippet.ts:3 keyedWriteError(…)', 'snippet.ts:4 itemError(…)']);
	});

	it('are never called without using the error they return', () => {
		const files = sourceFiles(join(root, 'nodes'));
		expect(files.length).toBeGreaterThan(40);
		const found = files.flatMap((file) => bareErrorCalls(relative(root, file), readFileSync(file, 'utf8')));
		expect(found).toEqual([]);
	});
});

/**
 * The headline of every error the nodes make (n8n's toast shows it alone): one sentence of cause and
 * at most one of action. Read from each construction site whose message is written there (a string or
 * template; `${…}` stands for a value): operationError(ctx, message, …), new NodeOperationError(node,
 * message, …), new NodeApiError(node, payload, { message }), new SpendLimitError(rule, message),
 * new FieldError(field, rule) and the service mapping's messages are tested where they are built.
 */
const MESSAGE_ARGUMENT: Record<string, number> = { operationError: 1, NodeOperationError: 1, SpendLimitError: 1, FieldError: 1 };

function literalText(node: ts.Expression): string | undefined {
	if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
	if (ts.isTemplateExpression(node)) return node.head.text + node.templateSpans.map((span) => `X${span.literal.text}`).join('');
	if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
		const left = literalText(node.left);
		const right = literalText(node.right);
		return left === undefined || right === undefined ? undefined : left + right;
	}
	if (ts.isParenthesizedExpression(node)) return literalText(node.expression);
	return undefined;
}

/** Every error message written at a construction site, with where it is. */
function errorMessages(fileName: string, text: string): { at: string; message: string }[] {
	const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
	const found: { at: string; message: string }[] = [];
	const visit = (node: ts.Node): void => {
		if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
			const callee = ts.isPropertyAccessExpression(node.expression) ? node.expression.name : node.expression;
			const name = ts.isIdentifier(callee) ? callee.text : '';
			const args = node.arguments ?? ts.factory.createNodeArray();
			let message: ts.Expression | undefined;
			if (name in MESSAGE_ARGUMENT) message = args[MESSAGE_ARGUMENT[name]];
			if (name === 'NodeApiError' && args[2] && ts.isObjectLiteralExpression(args[2])) {
				const property = args[2].properties.find((p) => p.name && ts.isIdentifier(p.name) && p.name.text === 'message');
				if (property && ts.isPropertyAssignment(property)) message = property.initializer;
			}
			// A conditional message: each branch.
			const branches = message && ts.isConditionalExpression(message) ? [message.whenTrue, message.whenFalse] : message ? [message] : [];
			for (const branch of branches) {
				const said = literalText(branch);
				if (said === undefined) continue;
				const { line } = source.getLineAndCharacterOfPosition(node.getStart());
				found.push({ at: `${fileName}:${line + 1}`, message: said });
			}
		}
		// An error's message set afterwards (a keyed write's 409, the router's row name): `error.message = …`.
		if (
			ts.isBinaryExpression(node) &&
			node.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
			ts.isPropertyAccessExpression(node.left) &&
			node.left.name.text === 'message'
		) {
			const value = node.right;
			for (const branch of ts.isConditionalExpression(value) ? [value.whenTrue, value.whenFalse] : [value]) {
				const said = literalText(branch);
				const { line } = source.getLineAndCharacterOfPosition(node.getStart());
				if (said !== undefined) found.push({ at: `${fileName}:${line + 1}`, message: said });
			}
		}
		ts.forEachChild(node, visit);
	};
	visit(source);
	return found;
}

/** Sentences: a full stop, question or exclamation mark followed by a space and a capital starts the next. */
const sentenceCount = (message: string): number => message.split(/(?<=[.!?]) (?=[A-Z"])/).length;

describe('error headlines in the nodes', () => {
	it('reads messages from every kind of construction site', () => {
		const text = [
			'throw operationError(ctx, `Amount ${x} is wrong. Lower it. Then run again`, i);',
			'throw new NodeOperationError(node, "One. Two", { itemIndex });',
			'throw new NodeApiError(node, {}, { message: cond ? "A. B" : `C ${d}`, itemIndex });',
			'throw new SpendLimitError("rule", "Over the limit: " + "lower it");',
			'throw operationError(ctx, messageFromElsewhere, i);',
			'error.message = ok ? "Kept. Fine" : `Row ${n}: ${error.message}`;',
		].join('\n');
		expect(errorMessages('snippet.ts', text)).toEqual([
			{ at: 'snippet.ts:1', message: 'Amount X is wrong. Lower it. Then run again' },
			{ at: 'snippet.ts:2', message: 'One. Two' },
			{ at: 'snippet.ts:3', message: 'A. B' },
			{ at: 'snippet.ts:3', message: 'C X' },
			{ at: 'snippet.ts:4', message: 'Over the limit: lower it' },
			{ at: 'snippet.ts:6', message: 'Kept. Fine' },
			{ at: 'snippet.ts:6', message: 'Row X: X' },
		]);
		expect(sentenceCount('Amount X is wrong. Lower it. Then run again')).toBe(3);
		expect(sentenceCount('Expected "0", e.g. 1.5 USD')).toBe(1);
	});

	it('are at most two sentences: one of cause and one of action (the rest goes in the details)', () => {
		const files = sourceFiles(join(root, 'nodes'));
		const messages = files.flatMap((file) => errorMessages(relative(root, file), readFileSync(file, 'utf8')));
		expect(messages.length).toBeGreaterThan(80);
		expect(messages.filter(({ message }) => sentenceCount(message) > 2)).toEqual([]);
	});
});
