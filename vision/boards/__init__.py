"""The board games' camera pipeline: sites where pieces stand (``sites``), the
probes sampled around each (``probes``), what each probe sees for every reading
(``sight``, ``hiding``, ``crowds``), the classifier that names the pieces
(``classifier``) and the reader that ties them to frames (``reader``)."""
