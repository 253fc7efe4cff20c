// GitHub token profiles (seed 002): what a session may change on GitHub, as method+path rules
// for the REST API and git's smart HTTP, and — because method+path cannot see inside
// `POST /graphql` — the GraphQL document parsed (graphql-js) so that a mutation passes only
// when the profile allows that kind of write.
//
//   read          GET everything, clone and fetch; no push, no comment
//   issues-write  + issues and their comments, labels, assignees, reactions
//   review-write  + pull requests and reviews (not merging)
//   repo-write    + everything else: push (git-receive-pack), contents, refs, merges

import { Kind, parse, type OperationDefinitionNode } from 'graphql';

export const GITHUB_PROFILES = ['read', 'issues-write', 'review-write', 'repo-write'] as const;
export type GithubProfile = (typeof GITHUB_PROFILES)[number];

const LEVEL: Record<GithubProfile, number> = { read: 0, 'issues-write': 1, 'review-write': 2, 'repo-write': 3 };

/** Hosts the profile governs; other hosts are left to the rest of the policy. */
const GITHUB_HOSTS = new Set(['github.com', 'api.github.com', 'uploads.github.com', 'www.github.com']);

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const REPO = '/repos/[^/]+/[^/]+';
/** REST writes below repo-write, most specific first; everything else not a read needs repo-write. */
const REST_WRITES: Array<{ path: RegExp; needs: GithubProfile; what: string }> = [
  { path: new RegExp(`^${REPO}/pulls/\\d+/merge$`), needs: 'repo-write', what: 'merging a pull request' },
  { path: new RegExp(`^${REPO}/pulls(/|$)`), needs: 'review-write', what: 'pull requests and reviews' },
  { path: new RegExp(`^${REPO}/issues(/|$)`), needs: 'issues-write', what: 'issues and comments' },
];

/** GraphQL mutations below repo-write, by the kind of write they are. */
const ISSUE_MUTATIONS = new Set(['addComment', 'updateIssueComment', 'deleteIssueComment', 'createIssue', 'updateIssue', 'closeIssue', 'reopenIssue', 'addLabelsToLabelable', 'removeLabelsFromLabelable', 'clearLabelsFromLabelable', 'addAssigneesToAssignable', 'removeAssigneesFromAssignable', 'addReaction', 'removeReaction', 'lockLockable', 'unlockLockable', 'pinIssue', 'unpinIssue']);
const REVIEW_MUTATIONS = new Set(['createPullRequest', 'updatePullRequest', 'closePullRequest', 'reopenPullRequest', 'addPullRequestReview', 'addPullRequestReviewComment', 'addPullRequestReviewThread', 'addPullRequestReviewThreadReply', 'submitPullRequestReview', 'updatePullRequestReview', 'deletePullRequestReview', 'dismissPullRequestReview', 'updatePullRequestReviewComment', 'deletePullRequestReviewComment', 'requestReviews', 'resolveReviewThread', 'unresolveReviewThread', 'markPullRequestReadyForReview', 'convertPullRequestToDraft']);

function mutationNeeds(field: string): GithubProfile {
  if (ISSUE_MUTATIONS.has(field)) return 'issues-write';
  if (REVIEW_MUTATIONS.has(field)) return 'review-write';
  return 'repo-write';
}

export type ProfileVerdict = { allowed: true } | { allowed: false; reason: string };

function needs(profile: GithubProfile, required: GithubProfile, what: string): ProfileVerdict {
  if (LEVEL[profile] >= LEVEL[required]) return { allowed: true };
  return { allowed: false, reason: `${what} needs the ${required} GitHub profile; this session has ${profile}` };
}

/** The GraphQL operations in a POST /graphql body, or a reason it cannot be read. */
function graphqlOperations(body: Uint8Array): OperationDefinitionNode[] | string {
  let query: unknown;
  try {
    query = (JSON.parse(new TextDecoder().decode(body)) as { query?: unknown }).query;
  } catch {
    return 'the GraphQL request is not JSON';
  }
  if (typeof query !== 'string') return 'the GraphQL request has no query';
  try {
    return parse(query, { noLocation: true, maxTokens: 50_000 }).definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  } catch (error) {
    return `the GraphQL query does not parse: ${(error as Error).message}`;
  }
}

/**
 * Whether `profile` allows this request to GitHub; undefined for other hosts. `body` is
 * needed for `POST /graphql` (undefined there: refused, since what it does cannot be seen).
 */
export function githubProfileVerdict(profile: GithubProfile, method: string, url: URL, host: string, body: Uint8Array | undefined): ProfileVerdict | undefined {
  if (!GITHUB_HOSTS.has(host)) return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(url.pathname);
  } catch {
    // What GitHub would make of a path that is not valid percent-encoding cannot be told, so
    // the rules below cannot be applied to it.
    return { allowed: false, reason: `the path ${JSON.stringify(url.pathname.slice(0, 200))} is not valid percent-encoding; refused under the ${profile} GitHub profile` };
  }
  const path = decoded.replace(/\/+$/, '') || '/';
  // git smart HTTP: the push service, whether discovered (info/refs) or used.
  if (/\/git-receive-pack$/.test(path) || url.searchParams.get('service') === 'git-receive-pack') return needs(profile, 'repo-write', 'pushing (git-receive-pack)');
  if (/\/git-upload-pack$/.test(path) && method === 'POST') return { allowed: true };
  if (path === '/graphql' && host === 'api.github.com' && method === 'POST') {
    if (body === undefined) return profile === 'repo-write' ? { allowed: true } : { allowed: false, reason: 'a GraphQL request whose body cannot be read is refused under a GitHub profile below repo-write' };
    const operations = graphqlOperations(body);
    if (typeof operations === 'string') return { allowed: false, reason: `${operations}; refused under the ${profile} GitHub profile` };
    for (const operation of operations) {
      if (operation.operation === 'subscription') return { allowed: false, reason: 'GraphQL subscriptions are refused' };
      if (operation.operation !== 'mutation') continue;
      for (const selection of operation.selectionSet.selections) {
        if (selection.kind !== Kind.FIELD) return needs(profile, 'repo-write', 'a GraphQL mutation through a fragment');
        const verdict = needs(profile, mutationNeeds(selection.name.value), `the GraphQL mutation ${selection.name.value}`);
        if (!verdict.allowed) return verdict;
      }
    }
    return { allowed: true };
  }
  if (READ_METHODS.has(method)) return { allowed: true };
  if (host !== 'api.github.com') return needs(profile, 'repo-write', `${method} to ${host}`);
  const rule = REST_WRITES.find((r) => r.path.test(path));
  return rule === undefined ? needs(profile, 'repo-write', `${method} ${path}`) : needs(profile, rule.needs, `${method} ${path} (${rule.what})`);
}
