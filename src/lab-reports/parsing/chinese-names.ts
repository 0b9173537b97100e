import { isCapitals } from './name-words';

/**
 * Names printed family name first, as Chinese, Korean and Vietnamese names are (`TAN MEI LING`,
 * `Ng Kok Wah`), and Japanese names often are in English (`SATO HIROSHI`). Used by ./names.ts.
 */

/** Family names that come first in the names of those who carry them. */
export const SURNAME_FIRST = new Set(
  (
    'tan lim lee ng ong wong goh chua chan koh teo ang yeo tay ho low toh sim chong chia seah foo lau leong yap quek soh heng ' +
    'chen wang li zhang liu yang huang zhao wu zhou xu sun zhu hu guo lin luo zheng liang cheung leung tsang ' +
    // Malaysia's and Singapore's Hokkien, Hakka and Teochew spellings.
    'khoo chin cheah gan loh liew ooi teh teoh yong kok ' +
    // Hong Kong's Cantonese spellings.
    'chow kwok lo lam mak yip tse fung kwan poon yeung tsui siu hui pang tam fong kwong yuen chiu ' +
    'kim park choi jung kang cho yoon jang shin ' +
    'nguyen tran pham hoang huynh phan vu vo dang bui ngo duong'
  ).split(' '),
);

/**
 * Korean family names as romanised on reports (`Hwang`, `Jeong`, `Yoon`): in a report printed in
 * Korea, a name in the Western order ends in one, after a given name of two syllables that may be
 * printed as two words (`Sung Min Hwang`).
 */
export const KOREAN_SURNAMES = new Set(
  'kim lee yi park choi jung jeong kang cho jo yoon yun jang lim im han oh seo shin kwon hwang ahn song yoo ryu hong jeon moon son bae baek heo nam'.split(' '),
);

/**
 * Common Japanese family names (the most frequent, with their common long-vowel spellings). Those
 * that are also Western given names (`Abe`, `Ken`) are left out: a name starting with one is read
 * as the rest of the world's names are.
 */
export const JAPANESE_SURNAMES = new Set(
  (
    'sato satoh saito saitoh suzuki takahashi tanaka watanabe ito itoh yamamoto nakamura kobayashi kato katoh yoshida yamada ' +
    'sasaki yamaguchi matsumoto inoue kimura hayashi shimizu yamazaki yamasaki mori ikeda hashimoto ishikawa yamashita ' +
    'ogawa ishii hasegawa goto gotoh okada kondo kondoh maeda fujita endo endoh aoki sakamoto murakami ota ohta ' +
    'kaneko fujii fukuda nishimura miura takeuchi nakajima okamoto matsuda harada nakagawa nakano ono ohno tamura ' +
    'fujiwara nakayama ishida kojima wada morita uchida shibata sakai kudo kudoh yokoyama miyazaki miyamoto uchiyama ' +
    'takagi ando andoh shimada taniguchi ohashi oshiro higa chinen miyagi arakaki kinjo nakamatsu yonamine tamashiro'
  ).split(' '),
);

/**
 * Syllables of Chinese given names as registries romanise them: Hanyu Pinyin, and the Hokkien,
 * Teochew, Cantonese and Hakka spellings of Singapore, Malaysia and Hong Kong. Western given names
 * are not among them (`Ann`, `Ben`, `Dan`, `Sam` are left out on purpose), so a name whose given
 * words are all in this list is a Chinese name and not, say, `Lee Ann Smith`.
 */
const GIVEN_SYLLABLES = new Set(
  // Pinyin, as Chinese given names use it.
  (
    'ai an ang ao bai bao bei bin bing bo can cheng chi chong chu chuan chun ci cong cui da dai ' +
    'dong du duan fang fei feng fu gang gao ge gen geng gong gu guang gui guo hai han hang hao he heng hong hou hu hua ' +
    'huai huan huang hui jia jian jiang jiao jie jin jing jiu ju juan jue jun kai kang ke kun lan lang le lei li lian liang ' +
    'lin ling liu long lu lun luo mei meng miao min ming mo mu na nan ning nuo pei peng ping qi qian qiang qiao qin qing ' +
    'qiong qiu quan rong rou rui ruo shan shao sheng shi shu shuang shun si song su tai tao teng tian ting tong wan wei ' +
    'wen wu xi xia xian xiang xiao xin xing xiong xiu xu xuan xue xun ya yan yang yao ye yi yin ying yong you yu yuan yue ' +
    'yun ze zhan zhao zhe zhen zheng zhi zhong zhou zhu zhuo zi zong zuo ' +
    // Hokkien, Teochew, Cantonese and Hakka spellings.
    'beng bee boon chai chee cheong cheow chew chin chiew choo choon chor chuan chye eng fah fai fatt foong geok guan ' +
    'hin hock hoe hoi hoon hooi huat hwa hwee kah keat keng keong kheng khim kiat kin king kit kok kong kuan kwai kwan ' +
    'kwang kwee kwok lai lay leng leong liang lok loong mui mun ngee ngoh oon peck peng poh pui seng sern shing siang siew ' +
    'sin sing siok siu soon suan suat suet sui swee sze tak tat teck teik thong tian tiong tuck wah wai wee weng wing yee ' +
    'yen yew yik yoke yuen ' +
    // Hong Kong's (`Ka Ho`, `Kwok Keung`, `Tai Man`, `Mei Kuen`, `Pui Shan`).
    'ka keung tai man kuen fong sum ching tsz hei kei lap kam tung fung sau yiu nga pik shuk yuk chau hung kwun lung pak tsun'
  ).split(' '),
);

/** Whether a word is one or two given-name syllables (`Mei`, `Meiling`). */
function givenSyllables(word: string): boolean {
  const w = word.toLowerCase().replace(/-/g, '');
  if (GIVEN_SYLLABLES.has(w)) return true;
  for (let cut = 2; cut <= w.length - 2; cut++) {
    if (GIVEN_SYLLABLES.has(w.slice(0, cut)) && GIVEN_SYLLABLES.has(w.slice(cut))) return true;
  }
  return false;
}

/**
 * A Chinese name read from its words (`TAN MEI LING` → given `MEI LING`, family `TAN`): a common
 * family name, then one or two words of given-name syllables; null when the words are not so.
 * A two-syllable Chinese given name is one name, not a first and a middle name.
 */
export function chineseName(familyFirst: string[]): { given: string; family: string } | null {
  const [family, ...given] = familyFirst;
  if (!family || !SURNAME_FIRST.has(family.toLowerCase()) || given.length < 1 || given.length > 2) return null;
  return given.every(givenSyllables) ? { given: given.join(' '), family } : null;
}

/**
 * How many words a Hong Kong name's family name takes when it comes first: its leading words in
 * capitals before given names that are not (`AU YEUNG Chun Kit`), or in a name all in capitals the
 * first word, two for a double family name (`AU YEUNG CHUN KIT`, `SZE TO`); 0 when it does not come first.
 */
export function hongKongFamilyWords(full: string[]): number {
  const run = full.findIndex((w) => !isCapitals(w));
  if (run === -1) return full.length > 2 && HONG_KONG_DOUBLE_FAMILY_NAME.test(`${full[0]} ${full[1]}`) ? 2 : 1;
  return run > 0 && full.slice(run).every((w) => !isCapitals(w)) ? run : 0;
}

const HONG_KONG_DOUBLE_FAMILY_NAME = /^(au yeung|sze to)$/i;
