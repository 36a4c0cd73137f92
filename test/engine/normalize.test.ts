/**
 * Name normalisation with the real name tables (built once from the shipped name data), plus
 * the contract properties: bounded token count, one abjad flag per token, idempotence.
 */
import t from 'tap';
import fc from 'fast-check';
import { normalizeName, normalizedKey, MAX_NAME_TOKENS } from '../../engine/text/normalize.js';
import { EMPTY_NAME_TABLES_DATA, nameTablesFromData, type NameTables } from '../../engine/text/name-tables.js';
import { consonantSkeleton } from '../../engine/metrics/consonant-skeleton.js';
import { realNameTables } from './fixtures/helpers.js';

const tables = await realNameTables();
const tokens = (s: string, using: NameTables = tables): readonly string[] => normalizeName(s, using).tokens;

t.test('diacritics, case, compatibility forms', async (t) => {
  t.same(tokens('José MARÍA'), ['jose', 'maria']);
  t.same(tokens('Müller'), ['muller']);
  t.same(tokens('Straße'), ['strasse']);
  t.same(tokens('İlham Əliyev'), ['ilham', 'aliyev'], 'the Azerbaijani ə is written a, as the lists do');
  t.same(tokens('Məmmədov'), ['mammadov']);
  t.same(tokens('ﬁsher'), ['fisher'], 'NFKC ligature');
  t.same(tokens('ＡＢＣ Ｃｏｒｐ'), tokens('ABC Corp'), 'full-width forms');
  t.same(tokens('١٢٣'), ['123'], 'Arabic-Indic digits');
});

t.test('punctuation and apostrophes', async (t) => {
  t.same(tokens("O'Brien"), ['obrien']);
  t.same(tokens('O’Brien'), ['obrien'], 'typographic apostrophe');
  t.same(tokens("D'Artagnan"), ['dartagnan']);
  t.same(tokens('Jean-Luc Picard'), ['jean', 'luc', 'picard'], 'a hyphen separates');
  t.same(tokens('AL-QAIDA'), tokens('al qaida'));
  t.same(tokens("Al Qa'ida"), tokens('al qaida'));
  t.same(tokens('Smith, John (a.k.a. "Johnny")'), ['smith', 'john', 'aka', 'johnny']);
});

t.test('a title written together with the given name after it is dropped from it', async (t) => {
  t.same(tokens('HAJImuhammad ASHRAF'), ['muhammad', 'ashraf']);
  t.same(tokens('Ladyjudith Compton'), ['judith', 'compton']);
  t.same(tokens('Hajinoorullah'), ['noor', 'allah'], 'the rest is split as a word of its own would be');
  t.same(tokens('Hajiyeva Leyla'), ['hajiyeva', 'leyla'], 'not when the rest is no known name (a family-name ending)');
  t.same(tokens('Herrmann Hans'), ['herrmann', 'hans']);
  t.same(tokens('Leyla Hajimuhammad'), ['leyla', 'hajimuhammad'], 'only in the first word, where titles stand');
  t.same(tokens('Ladislav Novak'), ['ladislav', 'novak'], 'a known name stays whole');
});

t.test('titles are dropped only before a name, suffixes only after it', async (t) => {
  t.same(tokens('Dr. Ayman al-Zawahiri'), ['ayman', 'al', 'zawahiri']);
  t.same(tokens('Sheikh Ahmed Yassin'), ['ahmed', 'yassin']);
  t.same(tokens('Ahmed Sheikh Yassin'), ['ahmed', 'sheikh', 'yassin'], 'a title word in the middle is kept');
  t.same(tokens('Ahmed President Ali'), ['ahmed', 'president', 'ali']);
  t.same(tokens('Prof. Dr. Hans Müller'), ['hans', 'muller'], 'several titles at the start');
  t.same(tokens('Mr John Smith Jr.'), ['john', 'smith'], 'a title before, a suffix after');
  t.same(tokens('John Smith PhD'), ['john', 'smith']);
  t.same(tokens('Jr. John Smith'), ['jr', 'john', 'smith'], 'a suffix before the name is a name part');
  t.same(tokens('Dr.'), ['dr'], 'a name that is only a title keeps one token');
  t.same(tokens('Dr. Dr.'), ['dr']);
  for (const title of tables.prefixTokens) {
    const got = tokens(`${title} zyxw ${title} qvuts`);
    if (got.join(' ') !== `zyxw ${title} qvuts`) t.fail(`prefix ${title}: ${got.join(' ')}`);
  }
  for (const suffix of tables.suffixTokens) {
    const got = tokens(`zyxw ${suffix} qvuts ${suffix}`);
    if (got.join(' ') !== `zyxw ${suffix} qvuts`) t.fail(`suffix ${suffix}: ${got.join(' ')}`);
  }
});

t.test('non-Latin scripts', async (t) => {
  t.same(tokens('Владимир Путин'), ['vladimir', 'putin']);
  t.same(tokens('Рамзан Кадыров'), ['ramzan', 'kadyrov']);
  t.same(tokens('Αλέξης Τσίπρας'), ['alexis', 'tsipras']);
  t.same(normalizeName('Владимир Путин', tables).abjad, [false, false]);

  const zawahiri = normalizeName('أيمن الظواهري', tables);
  t.equal(zawahiri.tokens.length, 3);
  t.same(zawahiri.abjad, [true, false, true], 'Arabic tokens are flagged abjad; the split article is not');
  t.equal(zawahiri.tokens[1], 'al', 'the article written joined to an unknown noun is split off');
  t.equal(consonantSkeleton(zawahiri.tokens[2]!), consonantSkeleton('zawahiri'));
  t.same(normalizeName('שלום', tables).abjad, [true], 'Hebrew is abjad');

  t.same(tokens('习近平'), ['xi', 'jinping'], 'Chinese personal name: surname + given name');
  t.same(tokens('मोदी'), ['modi'], 'the vowel signs of an Indic script are its vowels, not accents to drop');
  t.same(tokens('অমিত'), ['amit']);
  t.same(tokens('김정은'), ['gim', 'jeong', 'eun'], 'Korean personal name: surname + the given name syllable by syllable');
  t.same(tokens('리수용'), ['ri', 'su', 'yong'], 'an initial ㄹ is r, as the Revised Romanization and the lists write it');
  t.same(tokens('박봉주'), ['bak', 'bong', 'ju'], 'a final ㄱ is k');
  t.same(tokens('최룡해 김철'), ['choe', 'ryong', 'hae', 'gim', 'cheol']);
  t.same(tokens('王小明'), ['wang', 'xiaoming']);
  t.same(tokens('さとう'), ['satou'], 'kana');
});

t.test('Arabic article split (tables with only the noun)', async (t) => {
  const small = nameTablesFromData({ ...EMPTY_NAME_TABLES_DATA, nativeToLatin: { بغدادي: 'baghdadi' } });
  const n = normalizeName('البغدادي', small);
  t.same(n.tokens, ['al', 'baghdadi']);
  t.same(n.abjad, [false, true]);
  t.same(normalizeName('ال', small).tokens.length, 1, 'the bare article is not split');
});

t.test('Arabic article of a word the real tables know whole', async (t) => {
  t.same(tokens('البغدادي'), ['al', 'baghdadi'], 'البغدادي');
  t.same(tokens('أبو بكر البغدادي').slice(-2), ['al', 'baghdadi'], 'the article stays a token as in the Latin spelling');
});

t.test('multi-word phrases contract to one token', async (t) => {
  t.same(tokens('Acme Co-operative Society'), ['acme', 'coop']);
  t.same(tokens('Non-Governmental Organization'), ['ngo']);
  t.same(tokens('Abd al-Rahman'), ['abdul', 'rahman']);
  t.same(tokens('Abd al-Rahman'), tokens('Abdul Rahman'));
});

t.test('legal-form phrases', async (t) => {
  t.same(tokens('Gazprom limited liability company'), tokens('Gazprom LLC'), 'limited liability company = llc');
  // The Russian forms in the romanisations the lists use.
  for (const form of ['Obshchestvo s Ogranichennoi Otvetstvennostyu', 'Obshchestvo s Ogranichennoy Otvetstvennostyu', 'Obshchestvo s Ogranichennoi Otvetstvennostiu']) {
    t.same(tokens(`${form} Pluton`), tokens('Limited Liability Company Pluton'), form);
  }
  for (const form of ['Aktsionernoe Obshchestvo', 'Aktsionernoye Obshchestvo', 'Zakrytoe Aktsionernoe Obshchestvo', 'Publichnoe Aktsionernoe Obshchestvo']) {
    t.same(tokens(`${form} Pluton`), tokens('Joint Stock Company Pluton'), form);
  }
});

t.test('Persian, Urdu and Pashto letters', async (t) => {
  t.same(tokens('ځدران'), tokens('زدران'), 'Pashto dz (ځ) is z');
  t.same(tokens('څ'), tokens('س'), 'Pashto ts (څ) is s');
  t.same(tokens('ضيق'), tokens('ظيق'), 'ض letter by letter is written dh, like ظ');
  t.same(tokens('محمدتقی'), tokens('محمد تقی'), 'a compound given name written as one word (Mohammad Taghi)');
  t.same(tokens('علیرضا'), tokens('علی رضا'), 'Alireza');
  t.same(tokens('غلامرضا'), tokens('غلام رضا'), 'Gholamreza');
  t.equal(tokens('محمدزاده').length, 1, 'a family name made of a given name stays whole (Mohammadzadeh)');
  t.equal(tokens('المراني').length, 2, 'a word with the article is the article and a name, not two names');
  t.same(tokens('على'), tokens('علي'), 'a final ي without its dots (Ali)');
  t.same(tokens('عیسی'), tokens('عيسى'), 'the final ى of an Arabic name written with the Persian ye (Isa)');
});

t.test('an assimilated article of Abd al- is the same particle', async (t) => {
  t.same(tokens('Abd ar-Rahman'), ['abdul', 'rahman']);
  t.same(tokens('Abd us Salam'), ['abdul', 'salam']);
  t.ok(tables.synonymsOf.get('abdur')?.some((g) => tables.data.synonymGroups[g]!.includes('abdul')), 'abdur is a synonym of abdul');
  t.ok(tables.synonymsOf.get('abdus')?.some((g) => tables.data.synonymGroups[g]!.includes('abdul')), 'abdus too');
});

t.test('Abd al- and the name after it written as one word are split', async (t) => {
  t.same(tokens('Abdulrahman Bashir'), ['abdul', 'rahman', 'bashir']);
  t.same(tokens('Abdurrahman'), tokens('Abd al-Rahman'), 'the article assimilated: the next letter doubled');
  t.same(tokens('Abdussalaam'), ['abdul', 'salaam']);
  t.same(tokens('Abdurahman'), ['abdul', 'rahman'], 'the article left out before a consonant');
  t.same(tokens('Abdirahman'), ['abdul', 'rahman'], 'Somali Abdi-');
  t.same(tokens('Abdelkader'), ['abdul', 'kader']);
  t.same(tokens('Abdoulkader'), ['abdul', 'kader'], 'French ou');
  t.same(tokens('Abdolreza'), ['abdul', 'reza']);
  t.same(tokens('Abdulaziz'), ['abdul', 'aziz']);
  t.same(tokens('Abdullatif'), ['abdul', 'latif'], 'a name starting with l after the article');
  t.same(tokens('Abdullrahman'), ['abdul', 'rahman'], 'a doubled article before a consonant');
  t.same(tokens('Abdelilah'), ['abdul', 'ilah'], 'Abd al-Ilah is not Abdullah');
  for (const whole of ['Abdullah', 'Abdallah', 'Abdulla', 'Abdullahi', 'Abdillahi', 'Abdoulaye', 'Abdulai', 'Abdellillah', 'Abdollahinejad']) {
    t.same(tokens(whole), [whole.toLowerCase()], `${whole}: Abdullah is one name`);
  }
  for (const surname of ['Abdullayev', 'Abdurakhmanov', 'Abdullin', 'Abdulkhamidovich', 'Abdullozoda']) {
    t.same(tokens(surname), [surname.toLowerCase()], `${surname}: a surname made of the name`);
  }
  for (const other of ['Abdias', 'Abdon', 'Abdou', 'Abdi', 'Abdaoui']) t.same(tokens(other), [other.toLowerCase()], `${other}: no name after the particle`);
  t.ok(tables.synonymsOf.get('abdel')?.some((g) => tables.data.synonymGroups[g]!.includes('abdul')), 'abdel, written apart, is abdul');
  t.ok(tables.synonymsOf.get('abdol')?.some((g) => tables.data.synonymGroups[g]!.includes('abdul')), 'abdol too');
});

t.test('a name ending in Allah or al-Din reads the same written as one word or apart', async (t) => {
  t.same(tokens('Rahmatullah'), ['rahmat', 'allah']);
  t.same(tokens('Nasrallah'), tokens('Nasr Allah'));
  t.same(tokens('Hamdullah'), ['hamd', 'allah']);
  t.same(tokens('Badreddine'), tokens('Badr al-Din'), 'the article spelt e, then the doubled d');
  t.same(tokens('Bashir-ud-Din'), tokens('Bashiruddin'));
  t.same(tokens('Nasraldin Ghazi').slice(0, 2), ['nasr', 'uddin'], 'the article spelt al');
  t.same(tokens('Kamarudin'), ['kamar', 'uddin'], 'a single d after u (Malay and Indonesian spellings)');
  t.same(tokens('Zaher el Dine'), ['zaher', 'uddin']);
  t.same(tokens('Taj al Din'), tokens('Tajuddin'));
  t.ok(tables.synonymsOf.get('eddine')?.some((g) => tables.data.synonymGroups[g]!.includes('uddin')), 'Nour Eddine, apart: eddine is uddin');
  t.ok(tables.synonymsOf.get('ullah')?.some((g) => tables.data.synonymGroups[g]!.includes('allah')), 'Rahmat Ullah: ullah is allah');
  for (const whole of ['Abdullah', 'Abdallah', 'Cabdullah', 'Bouabdellah', 'Adilabdallah', 'Geraldine', 'Claudine', 'Volodin', 'Kostadin', 'Borodin', 'Cipolla', 'Ulla', 'Aydin', 'Nadine']) {
    t.same(tokens(whole), [whole.toLowerCase()], `${whole} is one word`);
  }
  t.same(tokens('Salahuddinuddin'), tokens('salah uddin uddin'), 'split until no part splits again');
});

t.test('a phrase with mistyped words still contracts', async (t) => {
  t.same(tokens('Militechtrade Limited Liability Comany'), ['militechtrade', 'llc'], 'a letter dropped');
  t.same(tokens('Limited Liabilitg Company Algoritm'), ['llc', 'algoritm'], 'a letter replaced');
  t.same(tokens('Umatex Joint-Stokc Company'), ['umatex', 'jsc'], 'two letters swapped');
  t.same(tokens('Zheng Drug Trfaficking Organization'), ['zheng', 'cartel'], 'in a long word');
  t.same(tokens('Jiont Stokc Company Argus'), ['jsc', 'argus'], 'two mistyped words, one met exactly');
  t.same(tokens('Limiter Liability Compay Polyus'), ['llc', 'polyus'], 'every word but one mistyped');
  t.same(tokens('Jiont Stokc Compnay Argus'), ['jiont', 'stokc', 'compnay', 'argus'], 'no word met exactly: not a phrase');
  t.same(tokens('Limited Liability Xompany'), ['limited', 'liability', 'xompany'], 'a different first letter is another word');
  t.same(tokens('Zhang Dang'), ['zhang', 'dang'], 'a short phrase ("zheng dang") is not met with a typo: a name could be its neighbour');
  t.same(tokens('Jiang Zhu'), ['jiang', 'zhu'], 'nor one whose exact rest is short ("jian zhu")');
});

t.test('a phrase split by a rotated or inverted name is put back', async (t) => {
  t.same(tokens('Company Onefactor Limited Liability'), ['onefactor', 'llc'], 'last word moved to the front');
  t.same(tokens('Company, Magneton Joint Stock'), ['magneton', 'jsc'], 'inverted with a comma');
  t.same(tokens('Exchange Baghdad Stock'), tokens('Baghdad Stock Exchange'));
  t.same(tokens('Company Magneton'), ['company', 'magneton'], 'no phrase split: nothing moves');
  t.same(tokens('Abd Rahman Al'), ['abd', 'rahman', 'al'], 'particles are not put back ("al abd")');
});

t.test('a phrase word written together with its neighbour', async (t) => {
  t.same(tokens('Limited Liability Companyvmk'), ['llc', 'vmk'], 'the last word glued to the next');
  t.same(tokens('Floresdrug Trafficking Organization'), tokens('Flores Drug Trafficking Organization'), 'the first word glued to the one before');
  t.same(tokens('Sundus Abd Alghafur'), tokens('Sundus Abd al-Ghafur'), 'the article glued to the name');
  t.same(tokens('Abd Allah Azzam'), ['abd', 'allah', 'azzam'], 'a word the tables know whole stays whole');
  t.same(tokens('Abu Albert'), ['abu', 'albert']);
  t.same(tokens('Van Derbyshire'), ['van', 'derbyshire'], 'short phrase words (van der) are not split off');
  t.same(tokens('Limited Liability Companyab'), ['limited', 'liability', 'companyab'], 'too little left to be a word');
});

t.test('a hyphenated East Asian given name is numbered as one compound', async (t) => {
  const compound = (s: string): readonly number[] => normalizeName(s, tables).compound;
  t.same(compound('Wen-Hsiung Wu'), [0, 0, -1]);
  t.same(compound('Kim Jong-un'), [-1, 0, 0]);
  t.same(compound('Chih-chiang Ch’en'), [0, 0, -1], 'Wade-Giles syllables');
  t.same(compound('Li-hua Wang-Li'), [0, 0, 1, 1], 'two compounds, numbered in order');
  t.same(compound('Li Hua'), [-1, -1], 'words apart are not a compound');
  t.same(compound('Ahmad al-Zain'), [-1, -1, -1], 'an Arabic article is not a syllable of a given name');
  t.same(compound('Jean-Luc Picard'), [-1, -1, -1], 'a part that is not a romanised syllable');
  t.same(compound('Zia-ul-Haq'), [-1, -1, -1]);
  t.same(compound('李华'), [-1, -1], 'a name in Han script is written without hyphens');
  t.same(compound('김정은'), [-1, 0, 0], 'a Korean given name in Hangul is one word of syllables, as "Jong-un" is');
  t.same(compound('김철'), [-1, -1], 'a one-syllable given name is a word of its own');
});

t.test('empty and whitespace input', async (t) => {
  for (const s of ['', ' ', '\t\n ', '---', '...', '()']) {
    const n = normalizeName(s, tables);
    t.same(n.tokens, [], JSON.stringify(s));
    t.same(n.abjad, []);
    t.equal(normalizedKey(n), '');
  }
});

t.test(`never more than MAX_NAME_TOKENS (${MAX_NAME_TOKENS}) tokens, one abjad flag per token`, async (t) => {
  t.equal(tokens(Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ')).length, MAX_NAME_TOKENS);
  const word = fc.constantFrom('anna', 'müller', 'владимир', 'أيمن', '习近平', 'dr', 'co', 'op', 'ltd', 'x', "o'neil", '12');
  fc.assert(
    fc.property(fc.array(word, { maxLength: 60 }), (words) => {
      const n = normalizeName(words.join(' '), tables);
      return n.tokens.length <= MAX_NAME_TOKENS && n.abjad.length === n.tokens.length && n.compound.length === n.tokens.length && n.tokens.every((x) => /^[a-z0-9]+$/.test(x));
    }),
    { numRuns: 500 },
  );
});

/** Words of Latin-ish names: diacritics, apostrophes, titles, phrase words and particles of the tables. */
function latinWords(): string[] {
  const phraseWords = [...new Set([...tables.phrases.keys()].flatMap((k) => k.split(' ')))].slice(0, 300);
  const titles = [...tables.prefixTokens, ...tables.suffixTokens].slice(0, 80);
  return [...phraseWords, ...titles, 'josé', 'MARÍA', "o'brien", 'al-qaida', 'Müller', 'Straße', 'jean-luc', 'smith', 'ivan', 'x', 'co.', '&', 'bin', 'abd', 'al', 'Ñandú'];
}

t.test('idempotent on its own output (names of up to MAX_NAME_TOKENS words)', async (t) => {
  const words = latinWords();
  const sep = fc.constantFrom(' ', '-', ', ', '  ');
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.constantFrom(...words), sep), { minLength: 1, maxLength: 12 }), (parts) => {
      const raw = parts.map(([w, s]) => w + s).join('');
      const once = normalizeName(raw, tables);
      const twice = normalizeName(once.tokens.join(' '), tables);
      return JSON.stringify(once.tokens) === JSON.stringify(twice.tokens);
    }),
    { numRuns: 3000 },
  );
  t.pass();
});

t.test('idempotent when the name is truncated', async (t) => {
  const raw = `${Array.from({ length: MAX_NAME_TOKENS - 1 }, (_, i) => `name${i}`).join(' ')} jr smith`;
  const once = tokens(raw);
  t.ok(once.length <= MAX_NAME_TOKENS);
  t.same(tokens(once.join(' ')), once, `${MAX_NAME_TOKENS - 1} words, a suffix, one more word`);
});

t.test('Arabic-script compounds written as one word are split where the script joins them', async (t) => {
  const small = nameTablesFromData({ ...EMPTY_NAME_TABLES_DATA, nativeToLatin: { عبد: 'abdul', ابو: 'abu', الله: 'allah' } });
  t.same(tokens('عبدالرحمان', small), ['abdul', 'al', 'rhmn'], 'عبد + the article of the next word');
  t.same(tokens('أبوغيث', small), ['abu', 'ghyth'], 'أبو, also with a hamza alif');
  t.same(tokens('حمدالله', small), ['hmd', 'allah'], 'the ending الله');
  t.same(tokens('ثناء اللہ', small), ['thn', 'allah'], 'Urdu heh (ہ) folds to its Arabic twin');
  t.same(tokens('عبدالرحمان', tables).slice(0, 2), ['abdul', 'rhmn'], 'with the real tables "abdul al" contracts to abdul');
  t.same(tokens('عبد', small), ['abdul'], 'a word alone is not split');
});

t.test('a word a table romanised from an abjad script keeps its letter-by-letter form beside it', async (t) => {
  const n = normalizeName('فضل رحيم', tables);
  t.same(n.tokens, ['fadl', 'rahim'], 'the tables spell فضل Fadl');
  t.same(n.letters, ['fdhl', 'rhym'], 'and its letters, where ض may be read z (Fazl)');
  t.equal(normalizeName('Fazal Rahim', tables).letters, undefined, 'a Latin name has none');
  t.equal(normalizeName('جمال عكاشة', tables).letters?.[1], undefined, 'nor a letter form of fewer than three consonants (ksh): the skeleton of too many words');
  const withArticle = normalizeName('البغدادي', tables);
  t.same(withArticle.tokens, ['al', 'baghdadi']);
  t.same(withArticle.letters, [undefined, 'bghddy'], 'the article is not part of the word it is written joined to');
});
