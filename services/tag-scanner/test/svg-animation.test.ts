// The timeline of an SVG image read from its bytes (SMIL and CSS inside it), where no DOM probe reaches.
import { describe, expect, it } from "vitest";
import { clockMs, svgAnimation } from "../src/gatherers/svg-animation.ts";

const svg = (body: string) => new TextEncoder().encode(`<svg xmlns="http://www.w3.org/2000/svg" width="300" height="250">${body}</svg>`);

describe("SVG image timeline", () => {
  it("reads SMIL clock values", () => {
    expect(clockMs("2s")).toBe(2_000);
    expect(clockMs(" 500ms ")).toBe(500);
    expect(clockMs("1.5")).toBe(1_500);
    expect(clockMs("0:00:02.5")).toBe(2_500);
    expect(clockMs("01:30")).toBe(90_000);
    expect(clockMs("1min")).toBe(60_000);
    expect(Number.isNaN(clockMs("click"))).toBe(true);
  });

  it("ends with the last SMIL animation: begin + dur x repeatCount, repeatDur, end", () => {
    expect(svgAnimation(svg(`<circle r="10"><animate attributeName="r" from="10" to="100" begin="1s" dur="2s" fill="freeze"/></circle>`)))
      .toEqual({ frames: 2, durationMs: 3_000, plays: 1 });
    expect(svgAnimation(svg(`<rect><animateTransform attributeName="transform" type="rotate" from="0" to="90" dur="0.5s" repeatCount="4"/></rect>`))?.durationMs).toBe(2_000);
    expect(svgAnimation(svg(`<rect><animate attributeName="x" from="0" to="9" dur="1s" repeatDur="2.5s"/></rect>`))?.durationMs).toBe(2_500);
    expect(svgAnimation(svg(`<rect><animate attributeName="x" from="0" to="9" dur="1s" repeatCount="indefinite" end="3.2s"/></rect>`))?.durationMs).toBe(3_200);
    // A `set` changes once, at its begin.
    expect(svgAnimation(svg(`<rect><set attributeName="fill" to="red" begin="1.5s"/></rect>`))?.durationMs).toBe(1_500);
  });

  it("follows syncbase chains in any document order; event begins never start", () => {
    const chain = `<rect><animate id="b" attributeName="x" to="9" begin="a.end+0.5s" dur="1s" fill="freeze"/></rect>
      <rect><animate id="a" attributeName="y" to="9" begin="1s" dur="1s" fill="freeze"/></rect>`;
    expect(svgAnimation(svg(chain))?.durationMs).toBe(3_500);
    expect(svgAnimation(svg(`<rect><animate attributeName="x" to="9" begin="click" dur="1s"/></rect>`))).toBeUndefined();
    expect(svgAnimation(svg(`<rect><animate attributeName="x" to="9" begin="click; 2s" dur="1s"/></rect>`))?.durationMs).toBe(3_000);
  });

  it("an animation repeating forever makes the image endless, with its period", () => {
    expect(svgAnimation(svg(`<g><animateTransform attributeName="transform" type="rotate" from="0" to="360" dur="1.2s" repeatCount="indefinite"/></g>`)))
      .toEqual({ frames: 2, durationMs: 1_200, plays: 0 });
  });

  it("reads CSS animations inside the image", () => {
    const css = (rule: string) => svg(`<style>@keyframes p { to { opacity: 0 } } .a { ${rule} }</style><rect class="a" width="9" height="9"/>`);
    expect(svgAnimation(css("animation: p 1s ease-in 0.5s 3 both"))?.durationMs).toBe(3_500);
    expect(svgAnimation(css("animation-name: p; animation-duration: 800ms; animation-delay: 1s"))?.durationMs).toBe(1_800);
    expect(svgAnimation(css("animation: p 2s linear infinite"))).toEqual({ frames: 2, durationMs: 2_000, plays: 0 });
  });

  it("a still SVG, or anything else, is no animation", () => {
    expect(svgAnimation(svg(`<rect width="300" height="250" fill="#c00"/>`))).toBeUndefined();
    expect(svgAnimation(new TextEncoder().encode("GIF89a"))).toBeUndefined();
  });
});
