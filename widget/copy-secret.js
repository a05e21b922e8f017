// @ts-check
/**
 * The copy buttons beside a secret shown once (docs/accounts.md "The first key"), inline
 * and allowed by its hash: each `button[data-copy]` (hidden in the HTML, so a page without
 * scripts shows no dead button) copies the text of the element it names and says so.
 * Without it the page still works: the secret can be selected and copied by hand.
 */
(() => {
  const buttons = /** @type {NodeListOf<HTMLButtonElement>} */ (
    document.querySelectorAll("button[data-copy]")
  );
  for (const button of buttons) {
    const source = document.getElementById(button.dataset.copy ?? "");
    if (!source || !navigator.clipboard) continue;
    button.hidden = false;
    button.addEventListener("click", () => {
      navigator.clipboard.writeText(source.textContent ?? "").then(
        () => {
          button.textContent = "Copied";
        },
        () => {
          button.textContent = "Select it and copy";
        },
      );
    });
  }
})();
