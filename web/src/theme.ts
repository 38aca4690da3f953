// The dashboard's Mantine theme, made for WCAG 2.2 AA (docs/accessibility.md): every colour token that text is drawn
// in has at least 4.5:1 contrast with what it is drawn on, in both schemes, so that pages need no fixes of their own;
// animations stop for people who ask their system for reduced motion; the keyboard focus ring always shows.
import {
  Anchor,
  ColorInput,
  createTheme,
  Drawer,
  InputWrapper,
  Modal,
  darken,
  DEFAULT_THEME,
  luminance,
  type CSSVariablesResolver,
  type MantineColorsTuple,
} from '@mantine/core';

/** WCAG's contrast ratio of two colours (1 to 21). */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/**
 * White text on shade 8 (filled buttons and badges in both schemes) and shade 8 on its own 10% tint (light variants,
 * coloured text and links in the light scheme) need more than Mantine's shades give for most hues (white on teal 8 is
 * 3.9:1). Shade 8 is darkened until it has 5.5:1 with white (then about 5:1 with its tint), and shade 9, the hover
 * colour, stays darker than it.
 */
const SHADE_8_ON_WHITE = 5.5;

function darkenUntil(color: string, ratio: number): string {
  let result = color;
  for (let amount = 0.02; contrastRatio(result, '#ffffff') < ratio && amount < 1; amount += 0.02)
    result = darken(color, amount);
  return result;
}

function accessiblePalette(palette: MantineColorsTuple): MantineColorsTuple {
  const shade8 = darkenUntil(palette[8], SHADE_8_ON_WHITE);
  const shade9 = darkenUntil(palette[9], Math.max(contrastRatio(shade8, '#ffffff') + 1, 6.5));
  return [...palette.slice(0, 8), shade8, shade9] as unknown as MantineColorsTuple;
}

const colors = Object.fromEntries(
  Object.entries(DEFAULT_THEME.colors).map(([name, palette]) => [
    name,
    name === 'dark' ? palette : accessiblePalette(palette),
  ]),
) as Record<string, MantineColorsTuple>;

export const theme = createTheme({
  primaryColor: 'blue',
  primaryShade: { light: 8, dark: 8 },
  colors,
  defaultRadius: 'md',
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  // Text on a colour of the user's own (a tag's, for one) is black or white, whichever contrasts more: 0.179 is the
  // luminance at which both give the same ratio.
  autoContrast: true,
  luminanceThreshold: 0.179,
  respectReducedMotion: true,
  focusRing: 'auto',
  components: {
    // A link inside a sentence is told apart by more than its colour.
    Anchor: Anchor.extend({ defaultProps: { underline: 'always' } }),
    // A field's error is tied to it (Mantine sets aria-describedby and aria-invalid) and read out when it appears.
    InputWrapper: InputWrapper.extend({ defaultProps: { errorProps: { role: 'alert' } } }),
    // The × of a dialog is an icon button: it needs a name.
    Modal: Modal.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } }),
    Drawer: Drawer.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } }),
    // The eye-dropper is an icon button: it needs a name.
    ColorInput: ColorInput.extend({
      defaultProps: { eyeDropperButtonProps: { 'aria-label': 'Pick a colour from the screen' } },
    }),
  },
});

/**
 * Secondary text ("dimmed") and placeholders: Mantine's grey is 3.3:1 on white (gray 6) and 3.5:1 on dark inputs
 * (dark 2); these are 7.4:1 or more on the light scheme's backgrounds and 5.6:1 or more on the dark scheme's.
 */
export const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': 'var(--mantine-color-gray-7)',
    '--mantine-color-placeholder': 'var(--mantine-color-gray-7)',
    '--mantine-color-error': 'var(--mantine-color-red-8)',
  },
  dark: {
    '--mantine-color-dimmed': 'var(--mantine-color-dark-1)',
    '--mantine-color-placeholder': 'var(--mantine-color-dark-1)',
    '--mantine-color-error': 'var(--mantine-color-red-4)',
  },
});
