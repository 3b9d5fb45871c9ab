import { describe, expect, it } from 'vitest';
import { parseFields, FieldsSyntaxError } from '../../rest-adapter/social-graph/graph-fields.ts';
import {
  createGraphErrors,
  FBTRACE_ID_LENGTH,
  formatSessionDate,
  GRAPH_DOCUMENTATION_URL,
  GRAPH_ERRORS,
  newFbtraceId,
  wwwAuthenticate,
  type GraphErrorReply,
} from '../../rest-adapter/social-graph/graph-errors.ts';

const TRACE = 'AbCdEfGh1Jk';
const errors = createGraphErrors({ fbtraceId: () => TRACE });

/** The expected reply, spelled out: status, body in full, and the WWW-Authenticate header. */
function expectReply(
  reply: GraphErrorReply,
  status: number,
  error: Record<string, unknown>,
  challenge: 'invalid_token' | 'invalid_request',
) {
  expect(reply.status).toBe(status);
  expect(reply.body).toStrictEqual({ error: { ...error, fbtrace_id: TRACE } });
  expect(reply.headers).toStrictEqual({
    'WWW-Authenticate': `OAuth "Social Platform" "${challenge}" "${String(error.message).replace(/"/g, '\\"')}"`,
  });
}

function syntaxErrorOf(input: string): FieldsSyntaxError {
  try {
    parseFields(input);
  } catch (error) {
    if (error instanceof FieldsSyntaxError) return error;
    throw error;
  }
  throw new Error(`"${input}" parsed`);
}

const UNSUPPORTED = (method: string, id: string) =>
  `Unsupported ${method} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, ` +
  'or does not support this operation. Please read the Graph API documentation at https://developers.facebook.com/docs/graph-api';

describe('token errors', () => {
  it('answers a request without a token with #104', () => {
    expectReply(
      errors.noToken(),
      400,
      { message: 'An access token is required to request this resource.', type: 'OAuthException', code: 104 },
      'invalid_request',
    );
  });

  it('answers an unparsable token with 190 and no subcode', () => {
    expectReply(
      errors.unparsableToken(),
      400,
      { message: 'Invalid OAuth access token - Cannot parse access token', type: 'OAuthException', code: 190 },
      'invalid_token',
    );
  });

  it('answers a token of the other login type exactly as an unparsable one', () => {
    const reply = errors.wrongHost();
    expect(reply).toStrictEqual(errors.unparsableToken());
    expect(reply.body.error).not.toHaveProperty('error_subcode');
  });

  it('answers an expired token with 190/463 and both dates in the platform format, in UTC', () => {
    expectReply(
      errors.expiredToken(new Date('2024-11-05T14:00:00Z'), new Date('2024-11-06T09:03:07.999Z')),
      400,
      {
        message:
          'Error validating access token: Session has expired on Tuesday, 05-Nov-24 14:00:00 UTC. ' +
          'The current time is Wednesday, 06-Nov-24 09:03:07 UTC.',
        type: 'OAuthException',
        code: 190,
        error_subcode: 463,
      },
      'invalid_token',
    );
  });

  it.each([
    [458, 'Error validating access token: The user has not authorized application 936619743392459.'],
    [
      459,
      'Error validating access token: You cannot access the app till you log in to www.social.example and follow the instructions given.',
    ],
    [
      460,
      'Error validating access token: The session has been invalidated because the user changed their password or Social has changed the session for security reasons.',
    ],
    [464, 'Error validating access token: Sessions for the user are not allowed because the user is not a confirmed user.'],
    [467, 'Error validating access token: The session is invalid because the user logged out.'],
    [
      492,
      'The user must be an administrator, editor, or moderator of the page in order to impersonate it. If the page business requires Two Factor Authentication, the user also needs to enable Two Factor Authentication.',
    ],
  ] as const)('answers an invalidated token with 190/%i', (subcode, message) => {
    const reply = subcode === 458 ? errors.invalidatedToken(458, '936619743392459') : errors.invalidatedToken(subcode);
    expectReply(reply, 400, { message, type: 'OAuthException', code: 190, error_subcode: subcode }, 'invalid_token');
  });
});

describe('permission errors', () => {
  it('answers an action the application may not perform with #10', () => {
    expectReply(
      errors.appPermission(),
      400,
      { message: '(#10) Application does not have permission for this action', type: 'OAuthException', code: 10 },
      'invalid_request',
    );
  });

  it('names the missing permission with #200', () => {
    expectReply(
      errors.missingPermission('social_business_manage_comments'),
      400,
      {
        message: '(#200) Requires extended permission: social_business_manage_comments',
        type: 'OAuthException',
        code: 200,
      },
      'invalid_request',
    );
  });

  it('answers a permission failure without a named permission with #200 Permissions error', () => {
    expectReply(
      errors.permissionsError(),
      400,
      { message: '(#200) Permissions error', type: 'OAuthException', code: 200 },
      'invalid_request',
    );
  });
});

describe('request errors', () => {
  it('names the field and the node type of an unknown field with #100', () => {
    expectReply(
      errors.unknownField('biography', 'User'),
      400,
      {
        message: '(#100) Tried accessing nonexisting field (biography) on node type (User)',
        type: 'OAuthException',
        code: 100,
      },
      'invalid_request',
    );
  });

  it('refuses an unsupported alias with #100 Unknown fields', () => {
    expectReply(
      errors.unknownFields('m'),
      400,
      { message: '(#100) Unknown fields: m.', type: 'OAuthException', code: 100 },
      'invalid_request',
    );
  });

  it('names a missing parameter with #100', () => {
    expectReply(
      errors.missingParameter('message'),
      400,
      { message: '(#100) The parameter message is required', type: 'OAuthException', code: 100 },
      'invalid_request',
    );
  });

  it('answers a bad parameter value with Invalid parameter and the details in error_user_msg', () => {
    expectReply(
      errors.invalidParameter(undefined, 'hide must be true or false.'),
      400,
      { message: 'Invalid parameter', type: 'OAuthException', code: 100, error_user_msg: 'hide must be true or false.' },
      'invalid_request',
    );
    expectReply(
      errors.invalidParameter('(#100) limit must be a positive integer', 'Use 1 to 50.', 'Bad limit'),
      400,
      {
        message: '(#100) limit must be a positive integer',
        type: 'OAuthException',
        code: 100,
        error_user_title: 'Bad limit',
        error_user_msg: 'Use 1 to 50.',
      },
      'invalid_request',
    );
    expect(errors.invalidParameter().body.error).toStrictEqual({
      message: 'Invalid parameter',
      type: 'OAuthException',
      code: 100,
      fbtrace_id: TRACE,
    });
  });

  it('refuses a cursor walk past the edge limit with #100', () => {
    expectReply(
      errors.cursorTooFar(),
      400,
      {
        message: '(#100) The After Cursor specified exceeds the max limit supported by this endpoint',
        type: 'OAuthException',
        code: 100,
      },
      'invalid_request',
    );
  });

  it.each(['get', 'post', 'delete'] as const)('answers an unsupported %s with 100/33 GraphMethodException', (method) => {
    expectReply(
      errors.unsupportedOperation(method, '17858893269000001'),
      400,
      {
        message: UNSUPPORTED(method, '17858893269000001'),
        type: 'GraphMethodException',
        code: 100,
        error_subcode: 33,
      },
      'invalid_request',
    );
  });

  it('links the configured documentation in the unsupported-operation message', () => {
    const custom = createGraphErrors({ fbtraceId: () => TRACE, documentationUrl: 'https://docs.example/graph' });
    expect(custom.unsupportedOperation('post', '1').body.error.message).toBe(
      "Unsupported post request. Object with ID '1' does not exist, cannot be loaded due to missing permissions, " +
        'or does not support this operation. Please read the Graph API documentation at https://docs.example/graph',
    );
    expect(GRAPH_DOCUMENTATION_URL).toBe('https://developers.facebook.com/docs/graph-api');
  });

  it('lists unknown path components with 2500, from a string or from segments', () => {
    const expected = { message: 'Unknown path components: /nope', type: 'OAuthException', code: 2500 };
    expectReply(errors.unknownEdge('nope'), 400, expected, 'invalid_request');
    expectReply(errors.unknownEdge('/nope'), 400, expected, 'invalid_request');
    expectReply(errors.unknownEdge(['nope']), 400, expected, 'invalid_request');
    expect(errors.unknownEdge(['media', 'extra']).body.error.message).toBe('Unknown path components: /media/extra');
  });

  it('answers /me without a user with 2500', () => {
    expectReply(
      errors.meWithoutUser(),
      400,
      {
        message: 'An active access token must be used to query information about the current user.',
        type: 'OAuthException',
        code: 2500,
      },
      'invalid_request',
    );
  });

  it("answers a malformed fields expression with 2500 and the parser's message", () => {
    const expected = {
      message: 'Syntax error "Expected name." at character 3: id,,text',
      type: 'OAuthException',
      code: 2500,
    };
    expectReply(errors.syntaxError(syntaxErrorOf('id,,text')), 400, expected, 'invalid_request');
    expectReply(errors.syntaxError(expected.message), 400, expected, 'invalid_request');
    // The quotes of the message are escaped inside the header's quoted string.
    expect(errors.syntaxError(expected.message).headers['WWW-Authenticate']).toBe(
      'OAuth "Social Platform" "invalid_request" "Syntax error \\"Expected name.\\" at character 3: id,,text"',
    );
  });

  it('treats a malformed version segment as a node id: the rest of the path is unknown (2500)', () => {
    expectReply(
      errors.badVersion('vfoo', ['17858893269000001', 'replies']),
      400,
      { message: 'Unknown path components: /17858893269000001/replies', type: 'OAuthException', code: 2500 },
      'invalid_request',
    );
  });

  it('treats a malformed version segment alone as an unknown object (100/33)', () => {
    expectReply(
      errors.badVersion('v99'),
      400,
      { message: UNSUPPORTED('get', 'v99'), type: 'GraphMethodException', code: 100, error_subcode: 33 },
      'invalid_request',
    );
    expect(errors.badVersion('vfoo', [], 'delete').body.error.message).toBe(UNSUPPORTED('delete', 'vfoo'));
  });
});

describe('rate limits', () => {
  it.each([
    ['appRateLimit', 4, '(#4) Application request limit reached'],
    ['userRateLimit', 17, '(#17) User request limit reached'],
    ['pageRateLimit', 32, '(#32) Page request limit reached'],
    ['customRateLimit', 613, '(#613) Calls to this api have exceeded the rate limit.'],
  ] as const)('%s answers #%i, 400, transient', (factory, code, message) => {
    expectReply(errors[factory](), 400, { message, type: 'OAuthException', code, is_transient: true }, 'invalid_request');
  });

  it('names the platform in the business-use-case limit (80002)', () => {
    expectReply(
      errors.businessRateLimit('Social'),
      400,
      {
        message: 'There have been too many calls to this Social account. Wait a bit and try again.',
        type: 'OAuthException',
        code: 80002,
        is_transient: true,
      },
      'invalid_request',
    );
  });
});

describe('server errors', () => {
  it('answers an internal failure with code 1, 500, transient', () => {
    expectReply(
      errors.unknownError(),
      500,
      { message: 'An unknown error has occurred.', type: 'OAuthException', code: 1, is_transient: true },
      'invalid_request',
    );
  });

  it('answers an unavailable dependency with code 2, 500 by default or 503', () => {
    const error = {
      message: 'An unexpected error has occurred. Please retry your request later.',
      type: 'OAuthException',
      code: 2,
      is_transient: true,
    };
    expectReply(errors.unexpectedError(), 500, error, 'invalid_request');
    expectReply(errors.unexpectedError(503), 503, error, 'invalid_request');
  });
});

describe('the envelope', () => {
  it('keeps the key order of the platform: message, type, code, subcode, …, fbtrace_id last', () => {
    expect(Object.keys(errors.unsupportedOperation('get', '1').body.error)).toEqual([
      'message',
      'type',
      'code',
      'error_subcode',
      'fbtrace_id',
    ]);
    expect(Object.keys(errors.invalidParameter('Invalid parameter', 'msg', 'title').body.error)).toEqual([
      'message',
      'type',
      'code',
      'error_user_title',
      'error_user_msg',
      'fbtrace_id',
    ]);
    expect(JSON.stringify(errors.appRateLimit().body)).toBe(
      '{"error":{"message":"(#4) Application request limit reached","type":"OAuthException","code":4,"is_transient":true,"fbtrace_id":"AbCdEfGh1Jk"}}',
    );
  });

  it('gives every reply a fresh fbtrace_id of 11 base64url characters', () => {
    const ids = new Set(Array.from({ length: 200 }, () => GRAPH_ERRORS.noToken().body.error.fbtrace_id));
    expect(ids.size).toBe(200);
    for (const id of ids) expect(id).toMatch(new RegExp(`^[A-Za-z0-9_-]{${FBTRACE_ID_LENGTH}}$`));
    expect(newFbtraceId()).toHaveLength(11);
  });

  it('calls the injected generator once per reply', () => {
    let n = 0;
    const counted = createGraphErrors({ fbtraceId: () => `trace${++n}` });
    expect(counted.noToken().body.error.fbtrace_id).toBe('trace1');
    expect(counted.permissionsError().body.error.fbtrace_id).toBe('trace2');
  });

  it('names the configured parent platform in the challenge and the messages', () => {
    const custom = createGraphErrors({ fbtraceId: () => TRACE, platformName: 'Parent', website: 'www.parent.example' });
    expect(custom.noToken().headers['WWW-Authenticate']).toBe(
      'OAuth "Parent Platform" "invalid_request" "An access token is required to request this resource."',
    );
    expect(custom.invalidatedToken(460).body.error.message).toBe(
      'Error validating access token: The session has been invalidated because the user changed their password or Parent has changed the session for security reasons.',
    );
    expect(custom.invalidatedToken(459).body.error.message).toContain('log in to www.parent.example and follow');
  });

  it('the default catalogue uses the Social platform', () => {
    expect(GRAPH_ERRORS.unparsableToken().headers['WWW-Authenticate']).toBe(
      'OAuth "Social Platform" "invalid_token" "Invalid OAuth access token - Cannot parse access token"',
    );
  });
});

describe('wwwAuthenticate', () => {
  it('escapes quotes and backslashes', () => {
    expect(wwwAuthenticate('Social Platform', 'invalid_request', 'a "b" \\c')).toBe(
      'OAuth "Social Platform" "invalid_request" "a \\"b\\" \\\\c"',
    );
  });

  it('replaces what a header cannot carry, so user input in a message never breaks the reply', () => {
    const reply = errors.unsupportedOperation('get', 'x\r\nSet-Cookie: a=b\u00e9\u{1F600}');
    expect(reply.body.error.message).toContain("'x\r\nSet-Cookie: a=b\u00e9\u{1F600}'");
    expect(reply.headers['WWW-Authenticate']).toContain("'x??Set-Cookie: a=b???'");
    expect(reply.headers['WWW-Authenticate']).toMatch(/^[\x20-\x7e]*$/);
  });

  it('cuts a very long message in the header and keeps it whole in the body', () => {
    const fields = `${'a,'.repeat(3000)},`;
    const reply = errors.syntaxError(syntaxErrorOf(fields));
    expect(reply.body.error.message).toBe(`Syntax error "Expected name." at character ${fields.length - 1}: ${fields}`);
    const header = reply.headers['WWW-Authenticate']!;
    expect(header.length).toBeLessThan(1100);
    expect(header.endsWith('..."')).toBe(true);
  });
});

describe('formatSessionDate', () => {
  it.each([
    ['2023-06-19T06:29:46Z', 'Monday, 19-Jun-23 06:29:46 UTC'],
    ['2024-03-30T23:00:00Z', 'Saturday, 30-Mar-24 23:00:00 UTC'],
    ['2000-01-01T00:00:00Z', 'Saturday, 01-Jan-00 00:00:00 UTC'],
    ['2031-12-07T09:05:03Z', 'Sunday, 07-Dec-31 09:05:03 UTC'],
  ])('writes %s as %s', (iso, expected) => {
    expect(formatSessionDate(new Date(iso))).toBe(expected);
  });

  it('is independent of the process time zone', () => {
    const saved = process.env.TZ;
    try {
      for (const zone of ['Pacific/Kiritimati', 'America/Los_Angeles']) {
        process.env.TZ = zone;
        // 23:30 UTC is already the next day in Kiritimati (UTC+14) and still 15:30 in Los Angeles.
        expect(new Date('2024-02-29T23:30:00Z').getDate()).toBe(zone === 'Pacific/Kiritimati' ? 1 : 29);
        expect(formatSessionDate(new Date('2024-02-29T23:30:00Z'))).toBe('Thursday, 29-Feb-24 23:30:00 UTC');
      }
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });
});
