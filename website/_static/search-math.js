/* Search snippets without TeX source (website/conf.py, html_js_files).
 *
 * Sphinx's search page builds each result's snippet from the text of the page it found, and that text
 * holds the maths as TeX source ("\(h^\star\)"), because MathJax typesets in the browser. Before the
 * snippet is cut, every math element of the fetched page is replaced here by a plain-text reading of
 * its TeX (h⋆, λ_k, ‖W‖_F): a snippet may end anywhere, so it is never typeset, only read.
 */
"use strict";

const QWEM_TEX_WORDS = {
  alpha: "α", beta: "β", gamma: "γ", delta: "δ", epsilon: "ε", varepsilon: "ε", zeta: "ζ", eta: "η",
  theta: "θ", vartheta: "ϑ", iota: "ι", kappa: "κ", lambda: "λ", mu: "μ", nu: "ν", xi: "ξ", pi: "π",
  rho: "ρ", sigma: "σ", tau: "τ", upsilon: "υ", phi: "φ", varphi: "φ", chi: "χ", psi: "ψ", omega: "ω",
  Gamma: "Γ", Delta: "Δ", Theta: "Θ", Lambda: "Λ", Xi: "Ξ", Pi: "Π", Sigma: "Σ", Phi: "Φ", Psi: "Ψ",
  Omega: "Ω", star: "⋆", ast: "∗", top: "ᵀ", intercal: "ᵀ", prime: "′", cdot: "·", cdots: "⋯",
  ldots: "…", dots: "…", times: "×", le: "≤", leq: "≤", ge: "≥", geq: "≥", ne: "≠", neq: "≠",
  approx: "≈", sim: "∼", simeq: "≃", equiv: "≡", propto: "∝", in: "∈", notin: "∉", subset: "⊂",
  subseteq: "⊆", cup: "∪", cap: "∩", infty: "∞", sum: "Σ", prod: "Π", int: "∫", partial: "∂",
  nabla: "∇", to: "→", rightarrow: "→", mapsto: "↦", leftarrow: "←", Rightarrow: "⇒", iff: "⇔",
  pm: "±", mp: "∓", ell: "ℓ", sqrt: "√", langle: "⟨", rangle: "⟩", lVert: "‖", rVert: "‖",
  Vert: "‖", "|": "‖", lvert: "|", rvert: "|", vert: "|", mid: "|", circ: "∘", otimes: "⊗",
  oplus: "⊕", forall: "∀", exists: "∃", neg: "¬", wedge: "∧", vee: "∨", emptyset: "∅",
  quad: " ", qquad: " ", ",": " ", ";": " ", ":": " ", "!": "", " ": " ", "{": "{", "}": "}",
  "%": "%", "&": "&", "#": "#", _: "_", log: "log", exp: "exp", ln: "ln", min: "min", max: "max",
  arg: "arg", sup: "sup", inf: "inf", det: "det", tr: "tr", dim: "dim", sin: "sin", cos: "cos",
  tanh: "tanh", artanh: "artanh", argmin: "argmin", argmax: "argmax",
};
// Commands that only style or size what follows: dropped, their argument kept.
const QWEM_TEX_DROP = /^(mathrm|mathbf|mathit|mathsf|mathcal|mathbb|boldsymbol|text|textrm|textit|textbf|operatorname|left|right|big|Big|bigg|Bigg|bigl|bigr|Bigl|Bigr|displaystyle|tfrac|dfrac|frac|hat|tilde|bar|widehat|widetilde|overline|underline|vec|dot|ddot|label|tag|nonumber|notag|begin|end|limits|nolimits|scriptstyle|textstyle)$/;

function qwemTexToText(tex) {
  let s = String(tex).trim();
  s = s.replace(/^\\\(|\\\)$/g, "").replace(/^\\\[|\\\]$/g, "").replace(/^\$+|\$+$/g, "");
  s = s.replace(/\\(?:begin|end)\{[^}]*\}/g, " ");
  // \frac{a}{b} -> a/b (one level of braces is enough for the book's fractions)
  s = s.replace(/\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}/g, "$1/$2");
  s = s.replace(/\\([A-Za-z]+|.)/g, (m, name) => {
    if (Object.prototype.hasOwnProperty.call(QWEM_TEX_WORDS, name)) return QWEM_TEX_WORDS[name];
    if (QWEM_TEX_DROP.test(name)) return "";
    return name;
  });
  s = s.replace(/\^\{?\s*⋆\s*\}?/g, "⋆").replace(/\^\{?\s*ᵀ\s*\}?/g, "ᵀ");
  s = s.replace(/[{}]/g, "").replace(/&/g, " ").replace(/\s+/g, " ");
  return s.trim();
}
window.qwemTexToText = qwemTexToText;

(function patchSearch() {
  if (typeof Search === "undefined" || !Search.htmlToText || Search._qwemPatched) return;
  const htmlToText = Search.htmlToText;
  Search.htmlToText = (htmlString, anchor) => {
    const doc = new DOMParser().parseFromString(htmlString, "text/html");
    doc.querySelectorAll(".math, span.eqno").forEach((el) => {
      el.textContent = el.classList.contains("eqno")
        ? " " + el.textContent.trim() + " "
        : " " + qwemTexToText(el.textContent) + " ";
    });
    return htmlToText(doc.documentElement.outerHTML, anchor);
  };
  Search._qwemPatched = true;
})();
