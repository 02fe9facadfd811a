import { test } from 'node:test';
import assert from 'node:assert/strict';
import { passwordMatches, scramCredential, ScramExchange, AuthenticationError } from '../src/auth/scram.js';

// RFC 7677 section 3: user "user", password "pencil".
const salt = Buffer.from('W22ZaJ0SNY7soEsUEjb6gQ==', 'base64');
const credential = scramCredential('SCRAM-SHA-256', 'pencil', 4096, salt);
const exchange = (): ScramExchange =>
  new ScramExchange(
    'SCRAM-SHA-256',
    (u) => (u === 'user' ? credential : undefined),
    () => scramCredential('SCRAM-SHA-256', 'decoy'),
    () => '%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0',
  );

test('SCRAM-SHA-256 answers the RFC 7677 example exactly', () => {
  const server = exchange();
  assert.equal(server.first('n,,n=user,r=rOprNGfwEbeRWgbNEkqO'), 'r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096');
  const serverFinal = server.final('c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=');
  assert.equal(serverFinal, 'v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=');
  assert.equal(server.principal, 'user');
});

test('SCRAM refuses a wrong proof, a foreign nonce, channel binding and an unknown user alike', () => {
  const attempts: [string, string][] = [
    ['n,,n=user,r=rOprNGfwEbeRWgbNEkqO', 'c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=AAAAZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ='],
    ['n,,n=user,r=rOprNGfwEbeRWgbNEkqO', 'c=biws,r=somethingelse,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ='],
    ['n,,n=nobody,r=rOprNGfwEbeRWgbNEkqO', 'c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ='],
  ];
  for (const [first, final] of attempts) {
    const server = exchange();
    server.first(first);
    assert.throws(() => server.final(final), AuthenticationError);
    assert.equal(server.principal, undefined);
  }
  assert.throws(() => exchange().first('p=tls-unique,,n=user,r=x'), AuthenticationError);
  assert.throws(() => exchange().final('c=biws,r=x,p=y'), AuthenticationError, 'final before first');
});

test('an unknown user gets a server-first message like a known one', () => {
  const reply = exchange().first('n,,n=nobody,r=abc');
  assert.match(reply, /^r=abc%hvYDpWUa2RaTCAfuxFIlj\)hNlF\$k0,s=[A-Za-z0-9+/=]+,i=4096$/);
});

test('PLAIN passwords are checked against the salted credential', () => {
  assert.equal(passwordMatches('SCRAM-SHA-256', credential, 'pencil'), true);
  assert.equal(passwordMatches('SCRAM-SHA-256', credential, 'pencil '), false);
});
