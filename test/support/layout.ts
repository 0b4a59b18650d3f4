// What a page of the explorer's web page hides of its content, for the browser tests: a table wider
// than its box whose box does not scroll sideways (at any width), a table that does not fit its box
// at a desktop width (nothing hidden behind a sideways scroll there), and any element of the main
// column that cuts its content off (overflow hidden or clip).
import type { Page } from 'playwright-core';

// The browser's globals, for the function page.evaluate runs there (the project compiles without the DOM lib).
declare const document: any;
declare const window: any;

/** One line per clipped thing on `page` (empty when nothing is); `desktop`: every table must fit its box. */
export async function clipped(page: Page, desktop: boolean): Promise<string[]> {
  return page.evaluate((desktop: boolean) => {
    const out: string[] = [];
    const name = (el: any) => el.closest('[aria-label]')?.getAttribute('aria-label') ?? el.className ?? el.tagName;
    for (const table of document.querySelectorAll('main table')) {
      const box = table.parentElement;
      const scrolls = ['auto', 'scroll'].includes(window.getComputedStyle(box).overflowX);
      if (table.offsetWidth > box.clientWidth + 1 && !scrolls) out.push(`table ${name(table)}: ${table.offsetWidth} px in a ${box.clientWidth} px box that does not scroll`);
      if (desktop && table.offsetWidth > box.clientWidth + 1) out.push(`table ${name(table)}: ${table.offsetWidth} px in a ${box.clientWidth} px box`);
    }
    for (const el of document.querySelectorAll('main *')) {
      if (el.closest('.sr-only')) continue;
      const overflow = window.getComputedStyle(el).overflowX;
      if ((overflow === 'hidden' || overflow === 'clip') && el.scrollWidth > el.clientWidth + 1) out.push(`${el.tagName.toLowerCase()} ${name(el)}: ${el.scrollWidth} px cut to ${el.clientWidth} px`);
    }
    return out;
  }, desktop);
}
