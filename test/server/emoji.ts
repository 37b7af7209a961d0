// Reaction payload processing: production validates that a reaction is exactly one emoji and
// enriches it with alias fields. A small table covers the common emoji; others get a generic alias.

const ALIASES: Record<string, string> = {
  '👍': ':thumbs_up:',
  '👎': ':thumbs_down:',
  '❤️': ':red_heart:',
  '❤': ':red_heart:',
  '😂': ':face_with_tears_of_joy:',
  '😀': ':grinning_face:',
  '🙂': ':slightly_smiling_face:',
  '😢': ':crying_face:',
  '😡': ':enraged_face:',
  '🤔': ':thinking_face:',
  '🤯': ':exploding_head:',
  '🎉': ':party_popper:',
  '🔥': ':fire:',
  '👀': ':eyes:',
  '🚀': ':rocket:',
  '✅': ':check_mark_button:',
  '❌': ':cross_mark:',
  '👏': ':clapping_hands:',
  '🙏': ':folded_hands:',
  '👋': ':waving_hand:',
  '💯': ':hundred_points:',
  '⭐': ':star:',
};

const SKIN_TONES: Record<string, string> = {
  '\u{1F3FB}': 'light_skin_tone',
  '\u{1F3FC}': 'medium-light_skin_tone',
  '\u{1F3FD}': 'medium_skin_tone',
  '\u{1F3FE}': 'medium-dark_skin_tone',
  '\u{1F3FF}': 'dark_skin_tone',
};
const SKIN_TONE_RE = /[\u{1F3FB}-\u{1F3FF}]/gu;

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

/** True when `s` is exactly one grapheme and that grapheme is an emoji (incl. flags, keycaps). */
export function isSingleEmoji(s: string): boolean {
  const segments = [...graphemes.segment(s)];
  if (segments.length !== 1) return false;
  return /\p{Extended_Pictographic}/u.test(s) || /^\p{Regional_Indicator}{2}$/u.test(s) || /^[#*0-9]\uFE0F?\u20E3$/u.test(s);
}

export interface ReactionPayload {
  emoji: string;
  detoned: string;
  detoned_alias: string;
  alias: string;
}

/** The payload production returns for a reaction: the emoji, without skin tone, and aliases. */
export function enrichReaction(emoji: string): ReactionPayload {
  const tones = emoji.match(SKIN_TONE_RE) ?? [];
  const detoned = emoji.replace(SKIN_TONE_RE, '');
  const detonedAlias = aliasOf(detoned);
  const alias = tones.length === 0 ? detonedAlias : `${detonedAlias.slice(0, -1)}_${SKIN_TONES[tones[0]!]}:`;
  return { emoji, detoned, detoned_alias: detonedAlias, alias };
}

function aliasOf(emoji: string): string {
  const known = ALIASES[emoji] ?? ALIASES[emoji.replace(/\uFE0F/g, '')];
  if (known) return known;
  const codePoints = [...emoji].filter((c) => c !== '\uFE0F').map((c) => c.codePointAt(0)!.toString(16));
  return `:emoji_${codePoints.join('_')}:`;
}
