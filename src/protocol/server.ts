// The companion server's conventions a page must follow to use it (ARCHITECTURE.md §7):
// every endpoint a page uses wants the page's token (handed to the page in a <meta> tag of
// the HTML the server served) in a header. Another website never sees the token, and a
// cross-origin request with a custom header needs a CORS preflight the server never grants.

/** The <meta name=…> whose content is the page's token. */
export const PAGE_TOKEN_META = 'airlock-page-token';

/** The request header that carries it. */
export const PAGE_TOKEN_HEADER = 'x-airlock-page-token';
