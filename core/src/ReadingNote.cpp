#include "lanes/core/ReadingNote.h"

#include "lanes/core/detail/SignalSafeText.h"

namespace lanes {

using detail::appendNumber;
using detail::appendQuoted;
using detail::appendText;

void appendReading(ReadingNote const& note, char* buffer, std::size_t size) noexcept {
  if (!note.file) return;
  if (!note.datasetKind) {
    appendText("while opening ", buffer, size);
  } else {
    appendText("while reading ", buffer, size);
    if (note.itemKind) {
      appendText(note.itemKind, buffer, size);
      appendText(" ", buffer, size);
      appendQuoted(note.item, buffer, size);
      if (note.entry >= 0) {
        appendText(" of entry ", buffer, size);
        appendNumber(note.entry, buffer, size);
      }
      appendText(" of ", buffer, size);
    } else {
      appendText("the metadata of ", buffer, size);
    }
    appendText(note.datasetKind, buffer, size);
    appendText(" ", buffer, size);
    appendQuoted(note.dataset, buffer, size);
    appendText(" in ", buffer, size);
  }
  appendQuoted(note.file, buffer, size);
}

}  // namespace lanes
