// ESLint flat config: typescript-eslint's recommended rules over src, test, scripts and bench.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'bench/node_modules/**', 'bench/results/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: {
        process: 'readonly', console: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly',
        setInterval: 'readonly', clearInterval: 'readonly', setImmediate: 'readonly', clearImmediate: 'readonly',
        queueMicrotask: 'readonly', URL: 'readonly', URLSearchParams: 'readonly', TextEncoder: 'readonly',
        TextDecoder: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', fetch: 'readonly',
        performance: 'readonly', structuredClone: 'readonly', Headers: 'readonly', Response: 'readonly', Request: 'readonly',
        globalThis: 'readonly', NodeJS: 'readonly', BigInt: 'readonly', require: 'readonly', __dirname: 'readonly',
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Protocol parsers match control characters on purpose (RFC 7617 §2, RFC 9112 request targets, XML 1.0 §2.2).
      'no-control-regex': 'off',
    },
  },
  {
    // CommonJS on purpose (bench/express-suite-hook.cjs is loaded by mocha's --require): require is how it loads.
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
