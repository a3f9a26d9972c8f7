import { optionalPackage } from '../../core/lazy-package.js';

/** gifenc is CommonJS to Node (its ES build is for bundlers): loaded through require, once. */
export const gifenc = optionalPackage<typeof import('gifenc')>('gifenc');
