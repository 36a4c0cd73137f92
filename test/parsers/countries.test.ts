import t from 'tap';
import { CountryResolver, countryKey } from '../../engine/countries.js';
import { countries } from './fixtures/helpers.js';

t.test('country names as the lists write them', async (t) => {
  const c = await countries();
  const cases: [string, string | undefined][] = [
    ['Democratic Republic of the Congo', 'CD'],
    ['Congo, Democratic Republic of the', 'CD'],
    ['Korea, North', 'KP'],
    ['Korea, South', 'KR'],
    ['Iran (Islamic Republic of)', 'IR'],
    ['IRAN (ISLAMIC REPUBLIC OF)', 'IR'],
    ['Syrian Arab Republic', 'SY'],
    ['United Kingdom', 'GB'],
    ['Russia', 'RU'],
    ['russian federation', 'RU'],
    ["Côte d'Ivoire", 'CI'],
    ['Cote d’Ivoire', 'CI'],
    ['Burma', 'MM'],
    ['Bahamas, The', 'BS'],
    ['St. Kitts and Nevis', 'KN'],
    ['USA', 'US'],
    ['Region: Crimea', 'UA'],
    ['Tunisi (Tunisia)', 'TN'],
    ['Occupied Palestinian Territories', 'PS'],
    ['Palestinian', 'PS'],
    ['Kosovo', 'XK'],
    ['Bosnia-Herzegovina', 'BA'],
    ['undetermined', undefined],
    ['Serbia and Montenegro', undefined],
    ['', undefined],
  ];
  for (const [name, code] of cases) t.equal(c.codeForName(name), code, name);
});

t.test('codes and QIDs', async (t) => {
  const c = await countries();
  t.equal(c.codeForAlpha3('IRQ'), 'IQ');
  t.equal(c.codeForAlpha3('pse'), 'PS');
  t.equal(c.codeForAlpha3('XXX'), undefined);
  t.equal(c.codeForQid('Q145'), 'GB');
  t.equal(c.codeForQid('Q31354462'), 'GE', 'Abkhazia (ge-ab) resolves to its parent');
  t.equal(c.territoryCodeForQid('Q31354462'), 'ge-ab');
  t.equal(c.codeForQid('Q46197'), 'AC', 'Ascension has its own two-letter code');
  t.equal(c.codeForQid('Q0'), undefined);
  t.ok(c.isCode('GB'));
  t.ok(c.isCode('xk'));
  t.notOk(c.isCode('00'));
  t.notOk(c.isCode('EU'), 'the EU is not a territory');
  t.notOk(c.isCode('GBR'));
  t.equal(c.nameForCode('KP'), 'North Korea');
});

t.test('fromJsonl validates lines', async (t) => {
  t.throws(() => CountryResolver.fromJsonl('{"code":"xx"}\n'), /line 1/);
  t.throws(() => CountryResolver.fromJsonl('\nnot json'), /line 2/);
  const small = CountryResolver.fromJsonl('{"code":"fr","qid":"Q142","name":"France","is_country":true,"names_weak":["Frankreich"]}');
  t.equal(small.codeForName('FRANKREICH'), 'FR');
  t.equal(countryKey('  Côte  d’Ivoire '), 'cote divoire');
});
