"""The state Department of Insurance's external review portal
(``review.insurance.state.test``): the uniform external review request, online or as a
fillable PDF, with documents, a reference number and a status page."""
