export * from './format.ts';
export * from './core.ts';
