import type { EndpointContract } from '#platform/http/contract.js';
import { ConsolePage } from './console-page.js';
import { DocsPage } from './docs-page.js';
import { WebAsset } from './web-asset.js';

/** The pages people open in a browser: the console, the API reference and their assets. */
export const PAGES_ENDPOINTS: readonly EndpointContract[] = [ConsolePage, DocsPage, WebAsset];
