"""What each page computes and says, as pure functions of its knob values (and the device): numbers, arrays
and Phrases (text keys with their values, phrases.py), no Streamlit and no text in any language, so every
claim a page makes, and the threshold that decides it, can be unit-tested here. One module per page id."""
