/* Copy buttons for citations. The citation is also plain, selectable text beside the button, so without scripts
   (or without navigator.clipboard, e.g. on plain http from another host) the page still works: the buttons are
   `hidden` in the markup and shown only here, where copying can work. Served from /static: the CSP allows no
   inline scripts. */
(function () {
  "use strict";
  if (!navigator.clipboard || !window.isSecureContext) return;
  var buttons = document.querySelectorAll("button.copy[data-copy]");
  for (var i = 0; i < buttons.length; i++) buttons[i].hidden = false;
  document.addEventListener("click", function (event) {
    var button = event.target.closest("button.copy[data-copy]");
    if (!button) return;
    var label = button.textContent;
    navigator.clipboard.writeText(button.getAttribute("data-copy")).then(function () {
      button.textContent = "Αντιγράφηκε";
      button.classList.add("copied");
    }, function () {
      button.textContent = "Επιλέξτε το κείμενο";
    });
    setTimeout(function () { button.textContent = label; button.classList.remove("copied"); }, 2000);
  });
})();
