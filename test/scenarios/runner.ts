/**
 * The scenario runner lives in src/simulate (it is `karmada-lite simulate`); the conformance scenarios
 * run through that same code.
 */
export * from '../../src/simulate/scenario.js';
